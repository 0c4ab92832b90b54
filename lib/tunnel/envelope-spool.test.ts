import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeliveryResult, EnvelopeSpool, type SpoolOptions } from '@/lib/tunnel/envelope-spool';

let dir: string;
const spools: EnvelopeSpool[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spool-test-'));
});

afterEach(async () => {
  await Promise.all(spools.splice(0).map((spool) => spool.close()));
  await rm(dir, { recursive: true, force: true });
});

function envelope(message: string): Uint8Array {
  return new TextEncoder().encode(`{"dsn":"http://k@h/1"}\n{"type":"event"}\n${JSON.stringify({ message })}`);
}

function messageOf(body: Uint8Array): string {
  return JSON.parse(new TextDecoder().decode(body).split('\n')[2] ?? '{}').message;
}

/** An ingest stand-in: down until `up` is set, recording what it accepted. */
function makeIngest() {
  const ingest = {
    up: false,
    answer: { outcome: 'delivered' } as DeliveryResult,
    accepted: [] as string[],
    attempts: 0,
    deliver: async (body: Uint8Array): Promise<DeliveryResult> => {
      ingest.attempts += 1;
      if (!ingest.up) {
        return { outcome: 'retry' };
      }
      if (ingest.answer.outcome === 'delivered') {
        ingest.accepted.push(messageOf(body));
      }
      return ingest.answer;
    },
  };
  return ingest;
}

function makeSpool(deliver: SpoolOptions['deliver'], overrides: Partial<SpoolOptions> = {}) {
  const spool = new EnvelopeSpool({
    dir,
    maxBytes: 10_000,
    maxAgeMs: 60_000,
    deliver,
    minBackoffMs: 5,
    maxBackoffMs: 20,
    ...overrides,
  });
  spools.push(spool);
  return spool;
}

describe('EnvelopeSpool', () => {
  it('says it cannot keep an envelope when its folder cannot be written, logs that once, and recovers', async () => {
    const ingest = makeIngest();
    const spool = makeSpool(ingest.deliver);
    await spool.ready();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    // The folder gone and a file in its place: as root, permissions would not stop a write.
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a folder');
    expect(await spool.enqueue(envelope('lost'))).toBe('unwritable');
    expect(await spool.enqueue(envelope('lost too'))).toBe('unwritable');
    expect(spool.writeProblem).toMatch(/^E[A-Z]+$/);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(spool.stats).toMatchObject({ pending: 0, pendingBytes: 0 });

    await rm(dir);
    expect(await spool.enqueue(envelope('kept'))).toBe('queued');
    expect(spool.writeProblem).toBeUndefined();
    ingest.up = true;
    await vi.waitFor(() => expect(ingest.accepted).toEqual(['kept']));
  });

  it('delivers everything in order once ingest is back', async () => {
    const ingest = makeIngest();
    const spool = makeSpool(ingest.deliver);
    for (const message of ['first', 'second', 'third']) {
      expect(await spool.enqueue(envelope(message))).toBe('queued');
    }
    await vi.waitFor(() => expect(ingest.attempts).toBeGreaterThan(2));
    expect(ingest.accepted).toEqual([]);

    ingest.up = true;
    // Ingest has an envelope before the spool removes and counts it: wait for the spool's count.
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, pendingBytes: 0, delivered: 3 }));
    expect(ingest.accepted).toEqual(['first', 'second', 'third']);
    expect(await readdir(dir)).toEqual([]);
  });

  it('drains a long backlog eight at a time, each sent once all before it were', async () => {
    const sent: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    let up = false;
    const spool = makeSpool(
      async (body) => {
        if (!up) return { outcome: 'retry' };
        sent.push(messageOf(body));
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // A round trip to ingest.
        await new Promise((resolve) => setTimeout(resolve, 10));
        inFlight -= 1;
        return { outcome: 'delivered' };
      },
      { maxBytes: 100_000 },
    );
    const backlog = Array.from({ length: 40 }, (_, index) => `envelope ${index}`);
    for (const message of backlog) await spool.enqueue(envelope(message));
    up = true;
    await vi.waitFor(() => expect(spool.stats.delivered).toBe(40), { timeout: 5_000 });
    expect(sent).toEqual(backlog);
    expect(mostInFlight).toBe(8);
  });

  it('tries again within a second of a new envelope, whatever its backoff, once ingest is back', async () => {
    let now = 1_000_000;
    const ingest = makeIngest();
    // Backing off for a minute after each failure.
    const spool = makeSpool(ingest.deliver, { minBackoffMs: 60_000, maxBackoffMs: 60_000, now: () => now });
    await spool.enqueue(envelope('during the outage'));
    await vi.waitFor(() => expect(ingest.attempts).toBe(1));
    ingest.up = true;
    now += 500;
    await spool.enqueue(envelope('half a second later'));
    expect(ingest.attempts).toBe(1);
    now += 600;
    await spool.enqueue(envelope('over a second later'));
    await vi.waitFor(() =>
      expect(ingest.accepted).toEqual(['during the outage', 'half a second later', 'over a second later']),
    );
  });

  it('delivers what an earlier run left behind after a restart', async () => {
    const down = makeIngest();
    const before = makeSpool(down.deliver);
    await before.enqueue(envelope('kept across the restart'));
    await before.enqueue(envelope('and this one'));
    await before.close();

    const ingest = makeIngest();
    ingest.up = true;
    const after = makeSpool(ingest.deliver);
    after.start();
    await vi.waitFor(() => expect(ingest.accepted).toEqual(['kept across the restart', 'and this one']));
  });

  it('refuses what does not fit in its size bound, and frees the space once delivered', async () => {
    const ingest = makeIngest();
    const one = envelope('x'.repeat(400));
    const spool = makeSpool(ingest.deliver, { maxBytes: one.byteLength * 2 });
    expect(await spool.enqueue(one)).toBe('queued');
    expect(await spool.enqueue(one)).toBe('queued');
    expect(await spool.enqueue(one)).toBe('full');

    ingest.up = true;
    await vi.waitFor(() => expect(spool.stats.pending).toBe(0));
    expect(await spool.enqueue(one)).toBe('queued');
  });

  it('drops and counts envelopes older than ingest accepts', async () => {
    let now = 1_000_000;
    const ingest = makeIngest();
    const options = { maxAgeMs: 1_000, now: () => now };
    const before = makeSpool(ingest.deliver, options);
    await before.enqueue(envelope('stale'));
    await before.close();
    // Aged on disk, and ingest is up when the next run starts: an envelope the running spool had
    // read just before it aged could still be offered once, so the age is checked across a restart.
    now += 2_000;
    ingest.up = true;
    const after = makeSpool(ingest.deliver, options);
    after.start();
    await vi.waitFor(() => expect(after.stats.droppedTooOld).toBe(1));
    expect(ingest.accepted).toEqual([]);
  });

  it('removes a half-written file and drops a corrupt one without blocking the rest', async () => {
    await writeFile(join(dir, '000000000000001-000000000-aaaaaaaa.envelope.tmp'), '{"dsn":');
    await writeFile(join(dir, '000000000000002-000000000-bbbbbbbb.envelope'), 'not an envelope at all');
    await writeFile(join(dir, '000000000000003-000000000-cccccccc.envelope'), envelope('intact'));

    const ingest = makeIngest();
    ingest.up = true;
    const spool = makeSpool(ingest.deliver, { maxAgeMs: Number.POSITIVE_INFINITY });
    spool.start();
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, delivered: 1 }));
    expect(ingest.accepted).toEqual(['intact']);
    expect(spool.stats.droppedCorrupt).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not retry an envelope that ingest rejects', async () => {
    const ingest = makeIngest();
    ingest.up = true;
    ingest.answer = { outcome: 'rejected' };
    const spool = makeSpool(ingest.deliver);
    await spool.enqueue(envelope('refused by ingest'));
    await vi.waitFor(() => expect(spool.stats.rejected).toBe(1));
    expect(ingest.attempts).toBe(1);
  });

  it('waits as long as ingest asks before retrying', async () => {
    const attemptsAt: number[] = [];
    const spool = makeSpool(async () => {
      attemptsAt.push(Date.now());
      return attemptsAt.length === 1 ? { outcome: 'retry', retryAfterMs: 150 } : { outcome: 'delivered' };
    });
    await spool.enqueue(envelope('rate limited'));
    await vi.waitFor(() => expect(spool.stats.delivered).toBe(1));
    expect((attemptsAt[1] ?? 0) - (attemptsAt[0] ?? 0)).toBeGreaterThanOrEqual(140);
  });
});
