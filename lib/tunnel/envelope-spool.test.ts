import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
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

  it('finds by itself that its folder can be written again, with nothing to keep meanwhile', async () => {
    const spool = makeSpool(makeIngest().deliver, { rescanIntervalMs: 20 });
    spool.start();
    await spool.ready();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const logged = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a folder');
    expect(await spool.enqueue(envelope('lost'))).toBe('unwritable');
    // Checks that find the folder still a file leave the problem as it is.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(spool.writeProblem).toMatch(/^E[A-Z]+$/);

    await rm(dir);
    await vi.waitFor(() => expect(spool.writeProblem).toBeUndefined());
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('can be written again'));
    // The check's own file is gone again.
    await vi.waitFor(() => expect(readdir(dir)).resolves.toEqual([]));
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

  /** Ingest up, but failing every envelope `isStuck` picks (a 5xx for those alone), for as long as `stuck` says. */
  function makeSelectiveIngest(isStuck: (message: string) => boolean) {
    const ingest = makeIngest();
    ingest.up = true;
    const selective = {
      stuck: true,
      failedTries: [] as Array<{ message: string; at: number }>,
      deliver: async (body: Uint8Array): Promise<DeliveryResult> => {
        const message = messageOf(body);
        if (!selective.stuck || !isStuck(message)) return ingest.deliver(body);
        selective.failedTries.push({ message, at: performance.now() });
        return { outcome: 'retry' };
      },
      accepted: ingest.accepted,
    };
    return selective;
  }

  /** Envelopes an earlier run kept in the folder, which a spool made next finds all at once. */
  async function keptByAnEarlierRun(messages: string[]): Promise<void> {
    const earlier = makeSpool(async () => ({ outcome: 'retry' }), { maxBytes: 100_000 });
    for (const message of messages) await earlier.enqueue(envelope(message));
    await earlier.close();
  }

  it('sets aside an envelope ingest alone keeps failing, so those behind it and new ones go on, and keeps it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await keptByAnEarlierRun(['stuck', 'behind it', 'and behind that']);
    const ingest = makeSelectiveIngest((message) => message === 'stuck');
    const spool = makeSpool(ingest.deliver);
    spool.start();
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 1, setAside: 1, delivered: 2 }));
    expect(ingest.accepted).toEqual(['behind it', 'and behind that']);
    // Three times alone (an outage would look the same), then beside the envelope behind it.
    expect(ingest.failedTries.map(({ message }) => message)).toEqual(['stuck', 'stuck', 'stuck', 'stuck']);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('it is set aside'));
    // A new envelope need not queue behind one set aside: it lost its place.
    expect(spool.hasPending).toBe(false);
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('tries an envelope set aside again later, twice as long after each failure, and delivers it once ingest takes it', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await keptByAnEarlierRun(['stuck', 'behind it']);
    const ingest = makeSelectiveIngest((message) => message === 'stuck');
    const spool = makeSpool(ingest.deliver, { minSetAsideMs: 50, maxSetAsideMs: 200 });
    spool.start();
    await vi.waitFor(() => expect(ingest.failedTries.length).toBe(8), { timeout: 3_000 });
    // The fourth try set it aside; the next ones come 50, 100, 200 and 200 ms after the one before.
    const gaps = ingest.failedTries.slice(3).map(({ at }, index, tries) => at - (tries[index - 1]?.at ?? at));
    expect(gaps[1]).toBeGreaterThanOrEqual(45);
    expect(gaps[2]).toBeGreaterThanOrEqual(95);
    expect(gaps[3]).toBeGreaterThanOrEqual(190);
    expect(gaps[4]).toBeGreaterThanOrEqual(190);
    expect(spool.stats).toMatchObject({ pending: 1, delivered: 1 });
    ingest.stuck = false;
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, setAside: 0, delivered: 2 }));
    expect(ingest.accepted).toEqual(['behind it', 'stuck']);
  });

  // Its own timeout: three tries a second apart come before what it checks.
  it('delivers what is behind an envelope it sets aside at once, not after the backoff its failures built up', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const behind = ['behind it 1', 'behind it 2', 'behind it 3', 'behind it 4'];
    await keptByAnEarlierRun(['stuck', ...behind]);
    const ingest = makeSelectiveIngest((message) => message === 'stuck');
    const accepted: Array<{ message: string; at: number }> = [];
    const spool = makeSpool(
      async (body) => {
        const result = await ingest.deliver(body);
        if (result.outcome === 'delivered') accepted.push({ message: messageOf(body), at: performance.now() });
        return result;
      },
      { minBackoffMs: 1_000, maxBackoffMs: 1_000 },
    );
    spool.start();
    await vi.waitFor(() => expect(accepted.map(({ message }) => message)).toEqual(behind), { timeout: 5_000 });
    // An outage's backoff would wait half a second or more after the first.
    expect((accepted[3]?.at ?? 0) - (accepted[0]?.at ?? 0)).toBeLessThan(400);
  }, 15_000);

  it('wakes at once for a new envelope while it waits only on one set aside', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await keptByAnEarlierRun(['stuck', 'behind it']);
    const ingest = makeSelectiveIngest((message) => message === 'stuck' || message === 'kept in an outage');
    const spool = makeSpool(ingest.deliver);
    spool.start();
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ setAside: 1, delivered: 1 }));
    // As the tunnel does when ingest failed a new envelope: it is kept, and tried within moments.
    ingest.stuck = false;
    await spool.enqueue(envelope('kept in an outage'));
    await vi.waitFor(() => expect(ingest.accepted).toEqual(['behind it', 'kept in an outage']));
  });

  it('wakes at once for what its look at the folder finds while it waits only on one set aside', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await keptByAnEarlierRun(['stuck', 'behind it']);
    const ingest = makeSelectiveIngest((message) => message === 'stuck');
    const spool = makeSpool(ingest.deliver, { rescanIntervalMs: 20 });
    spool.start();
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ setAside: 1, delivered: 1 }));
    await keptByAnEarlierRun(['kept by a peer']);
    await vi.waitFor(() => expect(ingest.accepted).toEqual(['behind it', 'kept by a peer']));
  });

  it('sets aside a run of envelopes ingest keeps failing, and delivers what is behind them', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const stuck = Array.from({ length: 5 }, (_, index) => `stuck ${index}`);
    await keptByAnEarlierRun([...stuck, 'good 1', 'good 2']);
    const ingest = makeSelectiveIngest((message) => message.startsWith('stuck'));
    const spool = makeSpool(ingest.deliver);
    spool.start();
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 5, setAside: 5, delivered: 2 }), {
      timeout: 3_000,
    });
    expect(ingest.accepted).toEqual(['good 1', 'good 2']);
  });

  it('sets aside an envelope in a long backlog’s window that ingest alone keeps failing', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const ingest = makeSelectiveIngest((message) => message === 'stuck');
    const spool = makeSpool(ingest.deliver, { maxBytes: 100_000 });
    const backlog = Array.from({ length: 48 }, (_, index) => `envelope ${index}`);
    for (const message of ['stuck', ...backlog]) await spool.enqueue(envelope(message));
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ delivered: 48, setAside: 1, pending: 1 }));
    expect(ingest.accepted).toEqual(backlog);
  });

  it('sets nothing aside in an outage however often each envelope was tried, and delivers all in order after it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const ingest = makeIngest();
    const offered = new Set<string>();
    const spool = makeSpool(
      (body) => {
        offered.add(messageOf(body));
        return ingest.deliver(body);
      },
      { minBackoffMs: 1, maxBackoffMs: 2 },
    );
    // More than a window, fewer than a long backlog: offered one by one, then with the ones behind.
    const backlog = Array.from({ length: 12 }, (_, index) => `envelope ${index}`);
    for (const message of backlog) await spool.enqueue(envelope(message));
    await vi.waitFor(() => expect(ingest.attempts).toBeGreaterThan(200), { timeout: 3_000 });
    expect(spool.stats).toMatchObject({ pending: 12, setAside: 0 });
    // None from further back than a window was tried ahead of the ones before it.
    expect([...offered].sort()).toEqual(backlog.slice(0, 8).sort());

    ingest.up = true;
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, delivered: 12 }));
    expect(ingest.accepted).toEqual(backlog);
    expect(errors).not.toHaveBeenCalled();
  });

  it('loses nothing to an ingest that fails every other envelope it is sent', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const accepted: string[] = [];
    let calls = 0;
    const spool = makeSpool(
      async (body) => {
        calls += 1;
        if (calls % 2 === 0) return { outcome: 'retry' };
        accepted.push(messageOf(body));
        return { outcome: 'delivered' };
      },
      { maxBytes: 100_000, minBackoffMs: 1, maxBackoffMs: 2, minSetAsideMs: 5, maxSetAsideMs: 10 },
    );
    const backlog = Array.from({ length: 30 }, (_, index) => `envelope ${index}`);
    for (const message of backlog) await spool.enqueue(envelope(message));
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, delivered: 30 }));
    expect([...accepted].sort()).toEqual([...backlog].sort());
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

  describe('shared by several processes (instances on one host share the default folder)', () => {
    it('sends each envelope of a backlog once, however the processes meet it', async () => {
      const backlog = Array.from({ length: 120 }, (_, index) => `envelope ${index}`);
      const down = makeIngest();
      const earlier = makeSpool(down.deliver, { maxBytes: 1_000_000 });
      for (const message of backlog) await earlier.enqueue(envelope(message));
      await earlier.close();

      const ingest = makeIngest();
      ingest.up = true;
      const slowIngest = async (body: Uint8Array) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return ingest.deliver(body);
      };
      // One starts draining; the others start while it removes what it delivered.
      const first = makeSpool(slowIngest, { maxBytes: 1_000_000 });
      first.start();
      await vi.waitFor(() => expect(ingest.accepted.length).toBeGreaterThan(5));
      const others = [makeSpool(slowIngest, { maxBytes: 1_000_000 }), makeSpool(slowIngest, { maxBytes: 1_000_000 })];
      for (const spool of others) spool.start();
      await Promise.all(others.map((spool) => spool.ready()));

      await vi.waitFor(() => expect([first, ...others].map((spool) => spool.stats.pending)).toEqual([0, 0, 0]), {
        timeout: 10_000,
      });
      expect([...ingest.accepted].sort()).toEqual([...backlog].sort());
      expect(await readdir(dir)).toEqual([]);
      // A peer's removals are no failure: every process still takes envelopes.
      for (const spool of others) expect(await spool.enqueue(envelope('after'))).toBe('queued');
    });

    it("leaves another process's write and delivery in progress alone, and takes back abandoned ones", async () => {
      const anHourAgo = new Date(Date.now() - 60 * 60 * 1_000);
      const files = {
        writing: '000000000000001-000000000-aaaaaaaa.envelope.tmp',
        sending: '000000000000002-000000000-bbbbbbbb.envelope.claimed',
        abandoned: '000000000000003-000000000-cccccccc.envelope.claimed',
      };
      await writeFile(join(dir, files.writing), '{"dsn":');
      await writeFile(join(dir, files.sending), envelope('a peer is sending this'));
      await writeFile(join(dir, files.abandoned), envelope('a peer died sending this'));
      await utimes(join(dir, files.abandoned), anHourAgo, anHourAgo);

      const ingest = makeIngest();
      ingest.up = true;
      const spool = makeSpool(ingest.deliver, { maxAgeMs: Number.POSITIVE_INFINITY });
      spool.start();
      await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, delivered: 1 }));
      expect(ingest.accepted).toEqual(['a peer died sending this']);
      expect((await readdir(dir)).sort()).toEqual([files.writing, files.sending]);
    });

    it('keeps an envelope it cannot read now for a later try, rather than drop it at once', async () => {
      const name = '000000000000001-000000000-aaaaaaaa.envelope';
      // Unreadable as a file (EISDIR), as a file is under EMFILE or EIO.
      await mkdir(join(dir, name));
      const ingest = makeIngest();
      ingest.up = true;
      const spool = makeSpool(ingest.deliver, {
        maxAgeMs: Number.POSITIVE_INFINITY,
        minBackoffMs: 200,
        maxBackoffMs: 200,
      });
      spool.start();
      await new Promise((resolve) => setTimeout(resolve, 250));
      await spool.close();
      expect(spool.stats).toMatchObject({ pending: 1, droppedCorrupt: 0 });
      expect(await readdir(dir)).toEqual([name]);

      await rm(join(dir, name), { recursive: true });
      await writeFile(join(dir, name), envelope('readable again'));
      const later = makeSpool(ingest.deliver, { maxAgeMs: Number.POSITIVE_INFINITY });
      later.start();
      await vi.waitFor(() => expect(ingest.accepted).toEqual(['readable again']));
    });

    it('drops an envelope it could not read five times, and sends the ones behind it', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      await mkdir(join(dir, '000000000000001-000000000-aaaaaaaa.envelope'));
      await writeFile(join(dir, '000000000000002-000000000-bbbbbbbb.envelope'), envelope('behind it'));
      const ingest = makeIngest();
      ingest.up = true;
      const spool = makeSpool(ingest.deliver, { maxAgeMs: Number.POSITIVE_INFINITY });
      spool.start();
      // The envelope behind it may go out before the fifth read gives the unreadable one up.
      await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, droppedCorrupt: 1 }));
      expect(ingest.accepted).toEqual(['behind it']);
    });

    it('takes back a claim a dead process left, at its next look at the folder, not only at a start', async () => {
      const claimed = '000000000000001-000000000-aaaaaaaa.envelope.claimed';
      await writeFile(join(dir, claimed), envelope('claimed by a process that died'));
      const ingest = makeIngest();
      ingest.up = true;
      // The claim is fresh when this process starts: it could be a live delivery.
      const spool = makeSpool(ingest.deliver, {
        maxAgeMs: Number.POSITIVE_INFINITY,
        abandonedAfterMs: 300,
        rescanIntervalMs: 50,
      });
      spool.start();
      await spool.ready();
      expect(spool.stats.pending).toBe(0);
      // Given time beyond the claim's age: on a busy machine the looks at the folder run late.
      await vi.waitFor(() => expect(ingest.accepted).toEqual(['claimed by a process that died']), { timeout: 5_000 });
      // Ingest has the envelope before the spool removes its file: wait for the spool's count.
      await vi.waitFor(() => expect(spool.stats.delivered).toBe(1));
      expect(await readdir(dir)).toEqual([]);
    });

    it('finds what another process kept after this one started', async () => {
      const ingest = makeIngest();
      ingest.up = true;
      const spool = makeSpool(ingest.deliver, { maxAgeMs: Number.POSITIVE_INFINITY, rescanIntervalMs: 50 });
      spool.start();
      await spool.ready();
      await writeFile(join(dir, '000000000000001-000000000-aaaaaaaa.envelope'), envelope('kept by a peer'));
      await vi.waitFor(() => expect(ingest.accepted).toEqual(['kept by a peer']));
    });

    it('gives back what it was sending when it stops before ingest answers', async () => {
      const spool = makeSpool(() => new Promise<DeliveryResult>(() => undefined));
      await spool.enqueue(envelope('in flight at shutdown'));
      await vi.waitFor(async () => expect((await readdir(dir)).some((name) => name.endsWith('.claimed'))).toBe(true));
      const started = Date.now();
      await spool.close(100);
      // Its delivery never ends: closed here, not again after the test.
      spools.splice(spools.indexOf(spool), 1);
      expect(Date.now() - started).toBeLessThan(1_000);
      const [left] = await readdir(dir);
      expect(left).toMatch(/\.envelope$/);
    });
  });

  it('says it is closed, not full, when asked to keep an envelope after it stopped', async () => {
    const spool = makeSpool(makeIngest().deliver);
    await spool.close();
    expect(await spool.enqueue(envelope('after shutdown'))).toBe('closed');
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

  it('removes a half-written file left long ago and drops a corrupt one without blocking the rest', async () => {
    const halfWritten = join(dir, '000000000000001-000000000-aaaaaaaa.envelope.tmp');
    await writeFile(halfWritten, '{"dsn":');
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1_000);
    await utimes(halfWritten, anHourAgo, anHourAgo);
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

  it('drops what ingest refuses as over quota, counts it, and goes on to the envelope behind it at once', async () => {
    const ingest = makeIngest();
    ingest.up = true;
    const spool = makeSpool(async (body) =>
      new TextDecoder().decode(body).includes('over quota') ? { outcome: 'rateLimited' } : ingest.deliver(body),
    );
    await spool.enqueue(envelope('over quota'));
    await spool.enqueue(envelope('behind it'));
    await vi.waitFor(() => expect(spool.stats).toMatchObject({ rateLimited: 1, delivered: 1, pending: 0 }));
    expect(ingest.attempts).toBe(1);
  });
});
