import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvelopeSpool } from '@/lib/tunnel/envelope-spool';

// A folder that turns read-only while the server runs. As root, permissions would not stop a
// write, and a read-only mount needs privileges a test should not take: the calls that write fail
// as they do on such a mount.
const readOnly = vi.hoisted(() => ({ on: false, looks: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const failing =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (!readOnly.on) return write(...args);
      return Promise.reject(Object.assign(new Error('read-only file system'), { code: 'EROFS' }));
    };
  return {
    ...fs,
    rename: failing(fs.rename),
    rm: failing(fs.rm),
    utimes: failing(fs.utimes),
    writeFile: failing(fs.writeFile),
    // Every look at the folder, counted.
    readdir: (async (...args: Parameters<typeof fs.readdir>) => {
      readOnly.looks += 1;
      return fs.readdir(...args);
    }) as typeof fs.readdir,
    // On a read-only mount, a folder that exists already is no error to `mkdir -p`.
    mkdir: async (...args: Parameters<typeof fs.mkdir>) => {
      if (
        readOnly.on &&
        (await fs.stat(args[0]).then(
          (found) => found.isDirectory(),
          () => false,
        ))
      )
        return undefined;
      return failing(fs.mkdir)(...args);
    },
  };
});

let dir: string;
let spool: EnvelopeSpool | undefined;

beforeEach(async () => {
  readOnly.on = false;
  dir = await mkdtemp(join(tmpdir(), 'spool-read-only-'));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});

afterEach(async () => {
  readOnly.on = false;
  await spool?.close();
  await rm(dir, { recursive: true, force: true });
});

function envelope(message: string): Uint8Array {
  return new TextEncoder().encode(`{"dsn":"http://k@h/1"}\n{"type":"event"}\n${JSON.stringify({ message })}`);
}

describe('EnvelopeSpool in a folder gone read-only', () => {
  it('delivers each kept envelope once, not again at every look at the folder, and removes it once it can', async () => {
    // Kept by an earlier run, before the folder went read-only.
    for (const [index, message] of ['first', 'second'].entries()) {
      await writeFile(join(dir, `00000000000000${index}-000000000-aaaaaaaa.envelope`), envelope(message));
    }
    readOnly.on = true;
    const accepted: string[] = [];
    spool = new EnvelopeSpool({
      dir,
      maxBytes: 10_000,
      // The names above date them from 1970.
      maxAgeMs: Number.POSITIVE_INFINITY,
      minBackoffMs: 5,
      maxBackoffMs: 20,
      rescanIntervalMs: 20,
      deliver: async (body) => {
        accepted.push(new TextDecoder().decode(body));
        return { outcome: 'delivered' };
      },
    });
    spool.start();
    await vi.waitFor(() => expect(spool?.stats.delivered).toBe(2));
    // At least one whole look at the folder after the delivery, which still finds both files.
    await vi.waitFor(() => expect(spool?.writeProblem).toBe('EROFS'));
    const looksBefore = readOnly.looks;
    await vi.waitFor(() => expect(readOnly.looks).toBeGreaterThanOrEqual(looksBefore + 4));
    expect(accepted).toHaveLength(2);
    expect(await readdir(dir)).toHaveLength(2);

    readOnly.on = false;
    await vi.waitFor(() => expect(readdir(dir)).resolves.toEqual([]));
    expect(accepted).toHaveLength(2);
  });
});
