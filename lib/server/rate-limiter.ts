import { LRUCache } from 'lru-cache';
import { TokenBucket } from '@/lib/server/token-bucket';

/**
 * A token bucket per client: `capacity` requests at once, refilled at `capacity` per `windowMs`.
 * The buckets are bounded, so a flood of distinct clients costs memory only up to `maxClients`:
 * the least recently seen one is forgotten first (it starts again with a full bucket, which is the
 * lenient side to err on).
 */
export class RateLimiter {
  readonly #buckets: LRUCache<string, TokenBucket>;

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    maxClients = 10_000,
    // Monotonic: a wall clock set back would otherwise hold every client's tokens back as long.
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#buckets = new LRUCache({ max: maxClients });
  }

  /** Takes a token for `client`; the answer says whether it may go on, or in how many ms it may retry. */
  take(client: string): { allowed: true } | { allowed: false; retryAfterMs: number } {
    const now = this.now();
    const bucket = this.#buckets.get(client) ?? new TokenBucket(this.capacity, this.capacity / this.windowMs, now);
    this.#buckets.set(client, bucket);
    return bucket.take(now) ? { allowed: true } : { allowed: false, retryAfterMs: bucket.msUntilToken() };
  }
}
