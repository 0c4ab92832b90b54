import 'server-only';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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
 * the next start removes; a file that still does not parse is dropped and counted, never retried.
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

  /** Stops delivering after the envelope in flight; what is still pending stays on disk. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    await this.#draining;
  }

  async #load(): Promise<void> {
    await mkdir(this.#options.dir, { recursive: true });
    for (const name of (await readdir(this.#options.dir)).sort()) {
      const path = join(this.#options.dir, name);
      if (name.endsWith('.tmp')) {
        await rm(path, { force: true });
      } else if (name.endsWith(SUFFIX)) {
        const { size } = await stat(path);
        this.#entries.push({ name, size, createdAt: Number.parseInt(name, 10) || 0 });
        this.#bytes += size;
      }
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
        batch.map((entry, index) => {
          const body = bodies[index];
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

  /** An envelope's body, or undefined when it was dropped: too old to send, or unreadable. */
  async #read(entry: Entry): Promise<Uint8Array | undefined> {
    if (this.#options.now() - entry.createdAt > this.#options.maxAgeMs) {
      await this.#remove(entry, 'droppedTooOld');
      return undefined;
    }
    try {
      const body = await readFile(join(this.#options.dir, entry.name));
      parseEnvelope(body);
      return body;
    } catch {
      await this.#remove(entry, 'droppedCorrupt');
      return undefined;
    }
  }

  /** Offers an envelope to ingest; it stays in the spool only to be retried. */
  async #offer(entry: Entry, body: Uint8Array): Promise<DeliveryResult> {
    this.#lastAttemptAt = this.#options.now();
    const result = await this.#options.deliver(body).catch((): DeliveryResult => ({ outcome: 'retry' }));
    if (result.outcome !== 'retry') await this.#remove(entry, result.outcome);
    return result;
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
    await rm(join(this.#options.dir, entry.name), { force: true }).catch((error: unknown) =>
      this.#noteWriteProblem(error),
    );
    this.#entries = this.#entries.filter((candidate) => candidate !== entry);
    this.#bytes -= entry.size;
    this.#counts[outcome] += 1;
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
