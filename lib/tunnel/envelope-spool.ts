import 'server-only';
import { randomBytes } from 'node:crypto';
import { renameSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEnvelope } from '@sentry/core';

export type DeliveryResult =
  | { outcome: 'delivered' }
  | { outcome: 'retry'; retryAfterMs?: number }
  | { outcome: 'rejected' };

export type SpoolOptions = {
  dir: string;
  maxBytes: number;
  /** Envelopes older than this are dropped, not sent: ingest would refuse them. */
  maxAgeMs: number;
  deliver: (body: Uint8Array) => Promise<DeliveryResult>;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
};

export type SpoolStats = {
  pending: number;
  pendingBytes: number;
  delivered: number;
  droppedTooOld: number;
  droppedCorrupt: number;
  rejected: number;
};

type Entry = { name: string; size: number; createdAt: number };
type Outcome = 'delivered' | 'droppedTooOld' | 'droppedCorrupt' | 'rejected';

const SUFFIX = '.envelope';
// An envelope being delivered by one process: taken by renaming, which only one process can do.
const CLAIMED = '.claimed';
// A claim lasts one delivery attempt, and a temporary file one write: older ones were left by a
// process that died (killed, out of memory) and are taken back at the next start.
const ABANDONED_AFTER_MS = 10 * 60 * 1_000;
// One round trip per envelope could fall behind the envelopes still arriving after an outage: a
// backlog this long drains DRAIN_WINDOW at a time, each sent once all before it were. A short one
// goes one by one, so ingest sees it in exactly the order it came.
const PARALLEL_DRAIN_FROM = 16;
const DRAIN_WINDOW = 8;
const ARRIVAL_RETRY_MS = 1_000;

/**
 * Envelopes that could not reach ingest, kept on disk and delivered in order when it is back, also
 * after a restart (like Relay's own spool). Each envelope is one file, written under a temporary
 * name and renamed into place, so a crash mid-write leaves at most a stray temporary file, which
 * a later start removes; a file that still does not parse is dropped and counted, never retried.
 * Several processes may share the folder (instances on one host use the same default folder):
 * each delivers what it kept and what it found at its start, and claims a file by renaming it
 * before it sends it, so only one of them sends each envelope.
 */
export class EnvelopeSpool {
  readonly #options: Required<SpoolOptions>;
  #entries: Entry[] = [];
  #bytes = 0;
  #sequence = 0;
  #closed = false;
  #draining: Promise<void> | undefined;
  #writeProblem: string | undefined;
  #lastAttemptAt = 0;
  #wake: (() => void) | undefined;
  /** The files this process has claimed and not yet settled. */
  readonly #claimed = new Set<string>();
  readonly #ready: Promise<void>;
  readonly #counts: Record<Outcome, number> = { delivered: 0, droppedTooOld: 0, droppedCorrupt: 0, rejected: 0 };

  constructor(options: SpoolOptions) {
    this.#options = { minBackoffMs: 1_000, maxBackoffMs: 60_000, now: Date.now, ...options };
    this.#ready = this.#load();
    // Surfaced by enqueue() and start(), not as an unhandled rejection.
    this.#ready.catch(() => undefined);
  }

  /** Resolves once the envelopes left by an earlier run are known. */
  ready(): Promise<void> {
    return this.#ready;
  }

  get hasPending(): boolean {
    return this.#entries.length > 0;
  }

  get stats(): SpoolStats {
    return { pending: this.#entries.length, pendingBytes: this.#bytes, ...this.#counts };
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
   * 'unwritable' when the folder cannot be written (read-only, no space, quota, removed). Either
   * way the envelope was not kept, and the caller must say so.
   */
  async enqueue(body: Uint8Array): Promise<'queued' | 'full' | 'unwritable'> {
    try {
      await this.#ready;
    } catch (error) {
      this.#noteWriteProblem(error);
      return 'unwritable';
    }
    if (this.#closed || this.#bytes + body.byteLength > this.#options.maxBytes) {
      return 'full';
    }
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
    if (this.#writeProblem !== undefined) {
      console.log(`Tunnel spool: ${this.#options.dir} can be written again`);
      this.#writeProblem = undefined;
    }
    this.#entries.push({ name, size: body.byteLength, createdAt });
    this.#startDraining();
    // Envelopes still arriving are worth a try at most once a second, whatever the backoff: under
    // load the spool notices within a second that ingest is back, instead of after up to a minute.
    if (this.#options.now() - this.#lastAttemptAt >= ARRIVAL_RETRY_MS) this.#wake?.();
    return 'queued';
  }

  /** Starts delivering what an earlier run left behind. */
  start(): void {
    // A folder that cannot be read is logged, not left as an unhandled rejection; enqueue says so too.
    void this.#ready.then(
      () => this.#startDraining(),
      (error: unknown) => this.#noteWriteProblem(error),
    );
  }

  /**
   * Stops delivering; what is still pending stays on disk. Waits up to `timeoutMs` for deliveries
   * in flight, then gives back what they claimed: an envelope that reached ingest all the same is
   * sent once more by a later start, which ingest dedupes, rather than kept from every process.
   */
  async close(timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    if (this.#draining !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        if (Number.isFinite(timeoutMs)) timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([this.#draining, deadline]);
      clearTimeout(timer);
    }
    for (const name of this.#claimed) {
      try {
        renameSync(this.#claimedPath(name), this.#path(name));
      } catch {
        // Gone or unwritable: a later start takes it back once its claim is old.
      }
    }
    this.#claimed.clear();
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
    const now = Date.now();
    for (const name of await readdir(this.#options.dir)) {
      const path = this.#path(name);
      if (name.endsWith('.tmp') || name.endsWith(CLAIMED)) {
        const modifiedAt = await this.#modifiedAt(path);
        // Another process's write or delivery in progress is left alone.
        if (modifiedAt === undefined || now - modifiedAt < ABANDONED_AFTER_MS) continue;
        if (name.endsWith('.tmp')) {
          await rm(path, { force: true });
        } else {
          await rename(path, path.slice(0, -CLAIMED.length)).catch(() => undefined);
        }
      }
    }
    for (const name of (await readdir(this.#options.dir)).sort()) {
      if (!name.endsWith(SUFFIX)) continue;
      let size: number;
      try {
        ({ size } = await stat(this.#path(name)));
      } catch (error) {
        // Delivered by another process between the listing and now.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      this.#entries.push({ name, size, createdAt: Number.parseInt(name, 10) || 0 });
      this.#bytes += size;
    }
  }

  #startDraining(): void {
    if (this.#draining === undefined && !this.#closed && this.hasPending) {
      this.#draining = this.#drain().finally(() => {
        this.#draining = undefined;
        this.#startDraining();
      });
    }
  }

  async #drain(): Promise<void> {
    let backoffMs = this.#options.minBackoffMs;
    while (!this.#closed && this.#entries.length > 0) {
      const width = this.#entries.length >= PARALLEL_DRAIN_FROM ? DRAIN_WINDOW : 1;
      const batch = this.#entries.slice(0, width);
      const bodies = await Promise.all(batch.map((entry) => this.#read(entry)));
      // Offered in order: each delivery starts before the next one's.
      const results = await Promise.all(
        batch.map((entry, index): DeliveryResult | Promise<DeliveryResult> | undefined => {
          const body = bodies[index];
          if (body === 'retry') return { outcome: 'retry' };
          return body === undefined ? undefined : this.#offer(entry, body);
        }),
      );
      const retry = results.find((result) => result?.outcome === 'retry');
      if (retry === undefined) {
        backoffMs = this.#options.minBackoffMs;
        continue;
      }
      // Full jitter keeps many instances from retrying in step when ingest comes back.
      await this.#sleep(retry.retryAfterMs ?? backoffMs * (0.5 + Math.random() / 2));
      backoffMs = Math.min(backoffMs * 2, this.#options.maxBackoffMs);
    }
  }

  /**
   * Claims an envelope and reads its body. Undefined when it is no longer this process's to send:
   * another process claimed it first, or it was dropped (too old, or not an envelope). 'retry' when
   * it could not be read now (out of file handles, an I/O error): it is given back and tried again.
   */
  async #read(entry: Entry): Promise<Uint8Array | 'retry' | undefined> {
    const path = this.#path(entry.name);
    const claimedPath = this.#claimedPath(entry.name);
    try {
      // Dated now (the file system's clock, as every process reads it), so that no starting
      // process takes the claim for an abandoned one.
      const now = new Date();
      await utimes(path, now, now);
      await rename(path, claimedPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#noteWriteProblem(error);
        return 'retry';
      }
      this.#forget(entry);
      return undefined;
    }
    this.#claimed.add(entry.name);
    if (this.#options.now() - entry.createdAt > this.#options.maxAgeMs) {
      await this.#remove(entry, 'droppedTooOld');
      return undefined;
    }
    let body: Uint8Array;
    try {
      body = await readFile(claimedPath);
    } catch {
      await this.#release(entry);
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

  /** Offers a claimed envelope to ingest; it goes back to the spool only to be retried. */
  async #offer(entry: Entry, body: Uint8Array): Promise<DeliveryResult> {
    this.#lastAttemptAt = this.#options.now();
    const result = await this.#options.deliver(body).catch((): DeliveryResult => ({ outcome: 'retry' }));
    if (result.outcome === 'retry') {
      await this.#release(entry);
    } else {
      await this.#remove(entry, result.outcome);
    }
    return result;
  }

  /** Gives a claimed envelope back, for this process's next try or another's. */
  async #release(entry: Entry): Promise<void> {
    if (!this.#claimed.delete(entry.name)) return;
    await rename(this.#claimedPath(entry.name), this.#path(entry.name)).catch((error: unknown) => {
      // Gone (another process took it back as abandoned): not this process's to send any more.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.#forget(entry);
      else this.#noteWriteProblem(error);
    });
  }

  /** Logs the first failure of a run of them, not one line per request. */
  #noteWriteProblem(error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error';
    if (this.#writeProblem === undefined) {
      console.error(`Tunnel spool: cannot write to ${this.#options.dir} (${code}); answering 503 until it can`);
    }
    this.#writeProblem = code;
  }

  async #remove(entry: Entry, outcome: Outcome): Promise<void> {
    // Gone from the queue whether or not the file could be removed: a file left behind (a
    // read-only folder) is at worst delivered once more after a restart, which ingest dedupes.
    await rm(this.#claimedPath(entry.name), { force: true }).catch((error: unknown) => this.#noteWriteProblem(error));
    this.#claimed.delete(entry.name);
    this.#forget(entry);
    this.#counts[outcome] += 1;
  }

  /** Out of this process's queue: settled here, or another process's to send. */
  #forget(entry: Entry): void {
    if (!this.#entries.includes(entry)) return;
    this.#entries = this.#entries.filter((candidate) => candidate !== entry);
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
