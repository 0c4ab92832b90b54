import 'server-only';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEnvelope } from '@sentry/core';

export type DeliveryResult =
  | { outcome: 'delivered' }
  | { outcome: 'retry' }
  | { outcome: 'rejected' }
  | { outcome: 'rateLimited' };

export type SpoolOptions = {
  dir: string;
  maxBytes: number;
  /** Envelopes older than this are dropped, not sent: ingest would refuse them. */
  maxAgeMs: number;
  deliver: (body: Uint8Array) => Promise<DeliveryResult>;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * How long one delivery may hold its claim on a file (it is one attempt, bounded by the ingest
   * timeout), and a write its temporary file: older ones were left by a process that died.
   */
  abandonedAfterMs?: number;
  /** How often the folder is read again, for what other processes gave back or left behind. */
  rescanIntervalMs?: number;
  /**
   * How long an envelope that ingest alone keeps failing is set aside at first, and at most (the
   * time doubles each time it fails again so).
   */
  minSetAsideMs?: number;
  maxSetAsideMs?: number;
  now?: () => number;
};

export type SpoolStats = {
  pending: number;
  /** Of those, the envelopes set aside now: ingest failed them while it took others. */
  setAside: number;
  pendingBytes: number;
  delivered: number;
  droppedTooOld: number;
  droppedCorrupt: number;
  rejected: number;
  rateLimited: number;
};

type Entry = { name: string; size: number; createdAt: number; failedReads: number };
/**
 * An envelope ingest did not take when offered (an answer to try again: 5xx, no answer in time):
 * how often, and until when it is set aside, for how long last (0: never set aside).
 */
type Trouble = { failedDeliveries: number; setAsideUntil: number; setAsideForMs: number };
type Outcome = 'delivered' | 'droppedTooOld' | 'droppedCorrupt' | 'rejected' | 'rateLimited';

const SUFFIX = '.envelope';
// An envelope being delivered by one process: taken by renaming, which only one process can do.
const CLAIMED = '.claimed';
// A file that cannot be read this many times running is dropped as corrupt: until then it may be
// a passing failure (out of file handles, an I/O error), and it holds up the envelopes behind it.
const MAX_FAILED_READS = 5;
// An envelope ingest alone keeps failing (a 5xx for it only, or one too large to send within the
// timeout) would hold up every envelope behind it, and every new one, which queue behind the
// backlog, until it is 30 days old. Envelopes in line that have failed this many times are offered
// together with the first one behind them that has not: if ingest takes that one, it is up, and
// they are set aside (passed over, tried again later, for longer each time) and lose their place.
// If it fails too (an outage) the order stays as it was. Nothing is dropped for failing.
const PROBE_AFTER_FAILED_DELIVERIES = 3;
// One round trip per envelope could fall behind the envelopes still arriving after an outage: a
// backlog this long drains DRAIN_WINDOW at a time, offered in order, a window once the one before
// it is settled (ingest may see a window's envelopes in any order). A short one goes one by one,
// so ingest sees it in exactly the order it came, but for envelopes that failed often (above).
const PARALLEL_DRAIN_FROM = 16;
const DRAIN_WINDOW = 8;
const ARRIVAL_RETRY_MS = 1_000;
// What a check that the folder takes writes again writes: a block.
const WRITE_CHECK_BYTES = 4_096;
// Node's timers take at most this; a longer wait would fire at once, and the spool spin.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Envelopes that could not reach ingest, kept on disk and delivered in order when it is back, also
 * after a restart (like Relay's own spool). Each envelope is one file, written under a temporary
 * name and renamed into place, so a crash mid-write leaves at most a stray temporary file, which
 * a later start removes; a file that still does not parse is dropped and counted, never retried.
 * Several processes may share the folder (instances on one host use the same default folder):
 * each delivers what it kept and what it finds there (at its start, then every
 * `rescanIntervalMs`), and claims a file by renaming it before it sends it, so only one of them
 * sends each envelope; one that stops mid-delivery gives its claims back, and a dead one's are
 * taken back once they are older than any delivery takes.
 */
export class EnvelopeSpool {
  readonly #options: Required<SpoolOptions>;
  /** What waits to be sent, by file name, in arrival order: settled ones go in constant time. */
  #entries = new Map<string, Entry>();
  #bytes = 0;
  #sequence = 0;
  #closed = false;
  #draining: Promise<void> | undefined;
  #writeProblem: string | undefined;
  #lastAttemptAt = 0;
  /** Whether the spool waits only for an envelope set aside to be due, not out an outage's backoff. */
  #isWaitingOnSetAside = false;
  #wake: (() => void) | undefined;
  #rescanTimer: NodeJS.Timeout | undefined;
  /** The files this process has claimed and not yet settled. */
  readonly #claimed = new Set<string>();
  /**
   * Envelopes settled here whose file could not be removed (a folder gone read-only): never queued
   * again, which would send them again at every look at the folder, and removed once they can be.
   */
  readonly #settledButKept = new Set<string>();
  /**
   * Envelopes ingest failed, by file name. Kept apart from the queue: a file another process
   * claimed first is forgotten here, and a look at the folder that finds it again knows its past.
   */
  readonly #troubles = new Map<string, Trouble>();
  readonly #ready: Promise<void>;
  /** Whether reading the folder at start failed: then nothing is ever kept, whatever a write check finds. */
  #loadFailed = false;
  /** Write failures so far: a write check clears the problem only if none came while it ran. */
  #writeFailures = 0;
  #isCheckingWritable = false;
  readonly #counts: Record<Outcome, number> = {
    delivered: 0,
    droppedTooOld: 0,
    droppedCorrupt: 0,
    rejected: 0,
    rateLimited: 0,
  };

  constructor(options: SpoolOptions) {
    this.#options = {
      minBackoffMs: 1_000,
      maxBackoffMs: 60_000,
      abandonedAfterMs: 10 * 60 * 1_000,
      rescanIntervalMs: 60_000,
      minSetAsideMs: 60_000,
      maxSetAsideMs: 60 * 60_000,
      now: Date.now,
      ...options,
    };
    this.#options.maxBackoffMs = Math.min(this.#options.maxBackoffMs, LONGEST_TIMER_MS);
    this.#options.maxSetAsideMs = Math.min(this.#options.maxSetAsideMs, LONGEST_TIMER_MS);
    this.#ready = this.#load();
    // Surfaced by enqueue() and start(), not as an unhandled rejection.
    this.#ready.catch(() => {
      this.#loadFailed = true;
    });
  }

  /** Resolves once the envelopes left by an earlier run are known. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /**
   * Whether envelopes wait in line, so that a new one must queue behind them to keep the order.
   * Those set aside do not count: they lost their place.
   */
  get hasPending(): boolean {
    const now = this.#options.now();
    for (const entry of this.#entries.values()) {
      if (!this.#isSetAside(entry.name, now)) return true;
    }
    return false;
  }

  get stats(): SpoolStats {
    const now = this.#options.now();
    const setAside = [...this.#entries.keys()].filter((name) => this.#isSetAside(name, now)).length;
    return { pending: this.#entries.size, setAside, pendingBytes: this.#bytes, ...this.#counts };
  }

  get dir(): string {
    return this.#options.dir;
  }

  /** Why the spool cannot take envelopes now (an error code such as EROFS); undefined when it can. */
  get writeProblem(): string | undefined {
    return this.#writeProblem;
  }

  /**
   * Keeps an envelope for later delivery: 'full' when it does not fit in the size bound,
   * 'unwritable' when the folder cannot be written (read-only, no space, quota, removed), 'closed'
   * once the spool has stopped (the server is shutting down). Either way the envelope was not
   * kept, and the caller must say so.
   */
  async enqueue(body: Uint8Array): Promise<'queued' | 'full' | 'unwritable' | 'closed'> {
    try {
      await this.#ready;
    } catch (error) {
      this.#noteWriteProblem(error);
      return 'unwritable';
    }
    if (this.#closed) return 'closed';
    if (this.#bytes + body.byteLength > this.#options.maxBytes) return 'full';
    const createdAt = this.#options.now();
    // Time first, so names sort in arrival order across restarts too.
    const name = `${String(createdAt).padStart(15, '0')}-${String(this.#sequence++).padStart(9, '0')}-${randomBytes(4).toString('hex')}${SUFFIX}`;
    const path = join(this.#options.dir, name);
    // Counted before the write, so concurrent enqueues cannot overshoot the bound together.
    this.#bytes += body.byteLength;
    try {
      // Again each time: the folder may have been removed while the server ran.
      await mkdir(this.#options.dir, { recursive: true });
      await writeFile(`${path}.tmp`, body, { flush: true });
      await rename(`${path}.tmp`, path);
    } catch (error) {
      this.#bytes -= body.byteLength;
      await rm(`${path}.tmp`, { force: true }).catch(() => undefined);
      this.#noteWriteProblem(error);
      return 'unwritable';
    }
    this.#noteWritable();
    // A look at the folder may have queued it first, and counted it.
    if (!this.#queue({ name, size: body.byteLength, createdAt, failedReads: 0 })) this.#bytes -= body.byteLength;
    this.#startDraining();
    // Envelopes still arriving are worth a try at most once a second, whatever the backoff: under
    // load the spool notices within a second that ingest is back, instead of after up to a minute.
    if (this.#isWaitingOnSetAside || this.#options.now() - this.#lastAttemptAt >= ARRIVAL_RETRY_MS) this.#wake?.();
    return 'queued';
  }

  /** Starts delivering what an earlier run left behind, and what other processes leave. */
  start(): void {
    // A folder that cannot be read is logged, not left as an unhandled rejection; enqueue says so too.
    void this.#ready.then(
      () => this.#startDraining(),
      (error: unknown) => this.#noteWriteProblem(error),
    );
    this.#rescanTimer = setInterval(() => {
      void this.#recheckWritable();
      void this.#ready
        .then(() => this.#scan())
        .then(
          () => {
            this.#startDraining();
            // What the look found (a peer's, given back or left) is not to wait for one set aside.
            if (this.#isWaitingOnSetAside && this.hasPending) this.#wake?.();
          },
          (error: unknown) => this.#noteWriteProblem(error),
        );
    }, this.#options.rescanIntervalMs);
    // A process that is otherwise done does not wait for the next look.
    this.#rescanTimer.unref();
  }

  /**
   * Stops delivering; what is still pending stays on disk. Waits up to `timeoutMs` for deliveries
   * in flight, then gives back what they claimed: an envelope that reached ingest all the same is
   * sent once more (ingest dedupes events by id), rather than held from every process.
   */
  async close(timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.#closed = true;
    clearInterval(this.#rescanTimer);
    this.#wake?.();
    if (this.#draining !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        if (Number.isFinite(timeoutMs)) timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([this.#draining, deadline]);
      clearTimeout(timer);
    }
    await Promise.all([...this.#claimed].map((name) => this.#release(name)));
  }

  #path(name: string): string {
    return join(this.#options.dir, name);
  }

  #claimedPath(name: string): string {
    return `${this.#path(name)}${CLAIMED}`;
  }

  /** Last-modified time in ms, or undefined when another process removed the file meanwhile. */
  async #modifiedAt(path: string): Promise<number | undefined> {
    try {
      return (await stat(path)).mtimeMs;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async #load(): Promise<void> {
    await mkdir(this.#options.dir, { recursive: true });
    await this.#scan();
  }

  /**
   * Reads the folder: takes back what a dead process left (half-written files removed, claims
   * given back) and queues every envelope not queued here yet, in arrival order.
   */
  async #scan(): Promise<void> {
    // Files are dated by the wall clock, which every process on the host reads alike (`now` is the
    // envelopes' own clock, for their age).
    const now = Date.now();
    const listed = await readdir(this.#options.dir);
    // What another process sent meanwhile is no trouble here any more.
    const present = new Set(listed.map((name) => (name.endsWith(CLAIMED) ? name.slice(0, -CLAIMED.length) : name)));
    for (const name of this.#troubles.keys()) {
      if (!present.has(name)) this.#troubles.delete(name);
    }
    for (const name of listed) {
      if (!name.endsWith('.tmp') && !name.endsWith(CLAIMED)) continue;
      if (this.#claimed.has(name.slice(0, -CLAIMED.length))) continue;
      const path = this.#path(name);
      const modifiedAt = await this.#modifiedAt(path);
      // Another process's write or delivery in progress is left alone.
      if (modifiedAt === undefined || now - modifiedAt < this.#options.abandonedAfterMs) continue;
      if (name.endsWith('.tmp')) {
        await rm(path, { force: true });
      } else {
        await rename(path, path.slice(0, -CLAIMED.length)).catch(() => undefined);
      }
    }
    for (const name of await readdir(this.#options.dir)) {
      if (!name.endsWith(SUFFIX) || this.#entries.has(name)) continue;
      if (this.#settledButKept.has(name)) {
        await rm(this.#path(name), { force: true }).then(
          () => this.#settledButKept.delete(name),
          () => undefined,
        );
        continue;
      }
      let size: number;
      try {
        ({ size } = await stat(this.#path(name)));
      } catch (error) {
        // Delivered by another process between the listing and now.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (this.#queue({ name, size, createdAt: Number.parseInt(name, 10) || 0, failedReads: 0 })) this.#bytes += size;
    }
    // Names begin with the time they were kept: what another process kept may be older.
    this.#entries = new Map([...this.#entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Queues an envelope, unless one of its name is queued already (false then). Bytes are the caller's to count. */
  #queue(entry: Entry): boolean {
    if (this.#entries.has(entry.name)) return false;
    this.#entries.set(entry.name, entry);
    return true;
  }

  #startDraining(): void {
    if (this.#draining === undefined && !this.#closed && this.#entries.size > 0) {
      this.#draining = this.#drain().finally(() => {
        this.#draining = undefined;
        this.#startDraining();
      });
    }
  }

  async #drain(): Promise<void> {
    let backoffMs = this.#options.minBackoffMs;
    while (!this.#closed && this.#entries.size > 0) {
      const batch = this.#nextBatch();
      if (batch.length === 0) {
        // Only envelopes set aside: the next is due then, or a new one wakes the spool at once.
        this.#isWaitingOnSetAside = true;
        await this.#sleep(this.#untilNextSetAsideEnds());
        this.#isWaitingOnSetAside = false;
        continue;
      }
      const bodies = await Promise.all(batch.map((entry) => this.#read(entry)));
      // Offered in order: each delivery starts before the next one's.
      const results = await Promise.all(
        batch.map((entry, index): DeliveryResult | Promise<DeliveryResult> | undefined => {
          const body = bodies[index];
          if (body === 'retry') return { outcome: 'retry' };
          return body === undefined ? undefined : this.#offer(entry, body);
        }),
      );
      if (this.#closed) break;
      // Ingest took an envelope, so it is up: those it failed again that had failed often are set
      // aside, and so is one set aside before, whatever else happened. Only other failures (fewer
      // so far, or a file that could not be read) are taken for an outage, and wait its backoff;
      // a round with none goes on at once.
      const tookOne = results.some((result) => result?.outcome === 'delivered');
      let isOutageLike = false;
      batch.forEach((entry, index) => {
        if (results[index]?.outcome !== 'retry') return;
        const trouble = this.#troubles.get(entry.name);
        const isStuck =
          bodies[index] !== 'retry' &&
          trouble !== undefined &&
          (trouble.setAsideForMs > 0 || (tookOne && trouble.failedDeliveries >= PROBE_AFTER_FAILED_DELIVERIES));
        if (isStuck) this.#putAside(trouble);
        else isOutageLike = true;
      });
      if (!isOutageLike) {
        backoffMs = this.#options.minBackoffMs;
        continue;
      }
      // Full jitter keeps many instances from retrying in step when ingest comes back.
      await this.#sleep(backoffMs * (0.5 + Math.random() / 2));
      backoffMs = Math.min(backoffMs * 2, this.#options.maxBackoffMs);
    }
  }

  /**
   * The envelopes to offer next, in order, from those not set aside: a long backlog's window, or
   * the first in line. When the first in line have failed often, the first one among the next
   * few that has not goes with them (PROBE_AFTER_FAILED_DELIVERIES), at most a window: looking
   * further would, after a long outage, send an envelope from far back ahead of the rest.
   */
  #nextBatch(): Entry[] {
    const now = this.#options.now();
    const due: Entry[] = [];
    let dueCount = 0;
    for (const entry of this.#entries.values()) {
      if (this.#isSetAside(entry.name, now)) continue;
      if (due.length < DRAIN_WINDOW) due.push(entry);
      dueCount += 1;
      if (dueCount === PARALLEL_DRAIN_FROM) return due;
    }
    const freshAt = due.findIndex((entry) => this.#failedDeliveries(entry.name) < PROBE_AFTER_FAILED_DELIVERIES);
    return freshAt === -1 ? due : due.slice(0, freshAt + 1);
  }

  #failedDeliveries(name: string): number {
    return this.#troubles.get(name)?.failedDeliveries ?? 0;
  }

  #isSetAside(name: string, now: number): boolean {
    return (this.#troubles.get(name)?.setAsideUntil ?? 0) > now;
  }

  /** Passes an envelope over for a while: at first minSetAsideMs, twice as long each time after. */
  #putAside(trouble: Trouble): void {
    const isFirst = trouble.setAsideForMs === 0;
    trouble.setAsideForMs = isFirst
      ? this.#options.minSetAsideMs
      : Math.min(trouble.setAsideForMs * 2, this.#options.maxSetAsideMs);
    trouble.setAsideUntil = this.#options.now() + trouble.setAsideForMs;
    if (isFirst) {
      console.error(
        `Tunnel spool: ingest failed an envelope ${trouble.failedDeliveries} times while it took others; it is set aside, tried again from time to time, and kept until ingest takes it or it is too old`,
      );
    }
  }

  /** How long until the first envelope set aside is due again. */
  #untilNextSetAsideEnds(): number {
    const now = this.#options.now();
    let soonest = this.#options.maxSetAsideMs;
    for (const name of this.#entries.keys()) {
      const until = this.#troubles.get(name)?.setAsideUntil;
      if (until !== undefined && until > 0) soonest = Math.min(soonest, until - now);
    }
    return Math.max(soonest, 0);
  }

  /**
   * Claims an envelope and reads its body. Undefined when it is no longer this process's to send:
   * another process claimed it first, this one stopped, or it was dropped (too old, not an
   * envelope, unreadable too often). 'retry' when it could not be read now: it is given back and
   * tried again.
   */
  async #read(entry: Entry): Promise<Uint8Array | 'retry' | undefined> {
    const claim = await this.#claim(entry);
    if (claim === undefined) return undefined;
    if (this.#closed) {
      await this.#release(entry.name);
      return undefined;
    }
    if (this.#options.now() - entry.createdAt > this.#options.maxAgeMs) {
      await this.#remove(entry, 'droppedTooOld');
      return undefined;
    }
    let body: Uint8Array;
    try {
      body = await readFile(claim);
    } catch {
      entry.failedReads += 1;
      if (entry.failedReads >= MAX_FAILED_READS) {
        await this.#remove(entry, 'droppedCorrupt');
        return undefined;
      }
      await this.#release(entry.name);
      return 'retry';
    }
    try {
      parseEnvelope(body);
    } catch {
      await this.#remove(entry, 'droppedCorrupt');
      return undefined;
    }
    return body;
  }

  /**
   * Where the envelope is to be read: its claimed file, or, in a folder that takes no rename (read
   * only), its own file, as no other process can add to such a folder either. Undefined when
   * another process claimed it first.
   */
  async #claim(entry: Entry): Promise<string | undefined> {
    const path = this.#path(entry.name);
    try {
      // Dated now, so that no process takes the claim for an abandoned one.
      const now = new Date();
      await utimes(path, now, now);
      await rename(path, this.#claimedPath(entry.name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.#forget(entry);
        return undefined;
      }
      this.#noteWriteProblem(error);
      return path;
    }
    this.#claimed.add(entry.name);
    return this.#claimedPath(entry.name);
  }

  /** Offers an envelope to ingest; it goes back to the spool only to be retried. */
  async #offer(entry: Entry, body: Uint8Array): Promise<DeliveryResult> {
    this.#lastAttemptAt = this.#options.now();
    const result = await this.#options.deliver(body).catch((): DeliveryResult => ({ outcome: 'retry' }));
    if (result.outcome === 'retry') {
      const trouble = this.#troubles.get(entry.name) ?? { failedDeliveries: 0, setAsideUntil: 0, setAsideForMs: 0 };
      trouble.failedDeliveries += 1;
      this.#troubles.set(entry.name, trouble);
      await this.#release(entry.name);
    } else {
      await this.#remove(entry, result.outcome);
    }
    return result;
  }

  /**
   * Gives a claimed envelope back, for this process's next try or another's. One that cannot be
   * renamed back stays claimed until a process takes it back as abandoned.
   */
  async #release(name: string): Promise<void> {
    if (!this.#claimed.delete(name)) return;
    await rename(this.#claimedPath(name), this.#path(name)).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#noteWriteProblem(error);
    });
  }

  #noteWritable(): void {
    if (this.#writeProblem === undefined) return;
    console.log(`Tunnel spool: ${this.#options.dir} can be written again`);
    this.#writeProblem = undefined;
  }

  /**
   * After a write failed, whether the folder takes one again (a block: a disk with no room for one
   * does not pass for mended): while ingest is up nothing is kept, and /api/health would report the
   * problem long after it is gone. One check at a time, so a hung mount does not pile them up.
   */
  async #recheckWritable(): Promise<void> {
    if (this.#writeProblem === undefined || this.#loadFailed || this.#isCheckingWritable) return;
    this.#isCheckingWritable = true;
    const failuresBefore = this.#writeFailures;
    // `.tmp`: what a look at the folder removes, were this process to die before it does.
    const probe = join(this.#options.dir, `write-check-${randomBytes(4).toString('hex')}.tmp`);
    try {
      await mkdir(this.#options.dir, { recursive: true });
      await writeFile(probe, new Uint8Array(WRITE_CHECK_BYTES), { flush: true });
      await rm(probe);
      // A write that failed meanwhile (a larger envelope, another call) has the last word.
      if (this.#writeFailures === failuresBefore) this.#noteWritable();
    } catch {
      await rm(probe, { force: true }).catch(() => undefined);
    } finally {
      this.#isCheckingWritable = false;
    }
  }

  /** Logs the first failure of a run of them, not one line per request. */
  #noteWriteProblem(error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error';
    this.#writeFailures += 1;
    if (this.#writeProblem === undefined) {
      console.error(`Tunnel spool: cannot write to ${this.#options.dir} (${code}); answering 503 until it can`);
    }
    this.#writeProblem = code;
  }

  async #remove(entry: Entry, outcome: Outcome): Promise<void> {
    // Gone from the queue whether or not the file could be removed. A file left behind (a
    // read-only folder) is sent again only by a process that did not settle it (after a restart,
    // or another instance sharing the folder): ingest dedupes events by id.
    const path = this.#claimed.delete(entry.name) ? this.#claimedPath(entry.name) : this.#path(entry.name);
    await rm(path, { force: true }).catch((error: unknown) => {
      this.#settledButKept.add(entry.name);
      this.#noteWriteProblem(error);
    });
    this.#forget(entry);
    this.#troubles.delete(entry.name);
    this.#counts[outcome] += 1;
  }

  /** Out of this process's queue: settled here, or another process's to send. */
  #forget(entry: Entry): void {
    if (this.#entries.get(entry.name) !== entry) return;
    this.#entries.delete(entry.name);
    this.#bytes -= entry.size;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      // A process that is otherwise done does not wait for a retry.
      timer.unref();
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
