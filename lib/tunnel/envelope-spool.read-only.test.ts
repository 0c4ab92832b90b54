import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvelopeSpool } from '@/lib/tunnel/envelope-spool';

// A folder that turns read-only while the server runs. As root, permissions would not stop a
// write, and a read-only mount needs privileges a test should not take: the calls that write fail
// as they do on such a mount.
const readOnly = vi.hoisted(() => ({ on: false }));
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
    mkdir: failing(fs.mkdir),
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
    let up = false;
    const accepted: string[] = [];
    spool = new EnvelopeSpool({
      dir,
      maxBytes: 10_000,
      maxAgeMs: 60_000,
      minBackoffMs: 5,
      maxBackoffMs: 20,
      rescanIntervalMs: 20,
      deliver: async (body) => {
        if (!up) return { outcome: 'retry' };
        accepted.push(new TextDecoder().decode(body));
        return { outcome: 'delivered' };
      },
    });
    spool.start();
    for (const message of ['first', 'second']) expect(await spool.enqueue(envelope(message))).toBe('queued');

    readOnly.on = true;
    up = true;
    await vi.waitFor(() => expect(spool?.stats.delivered).toBe(2));
    // Ten looks at the folder, which still holds both files.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(accepted).toHaveLength(2);
    expect(spool.writeProblem).toBe('EROFS');
    expect(await readdir(dir)).toHaveLength(2);

    readOnly.on = false;
    await vi.waitFor(() => expect(readdir(dir)).resolves.toEqual([]));
    expect(accepted).toHaveLength(2);
  });
});
