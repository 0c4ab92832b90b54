/**
 * A token bucket per client: `capacity` requests at once, refilled at `capacity` per `windowMs`.
 * The map is bounded, so a flood of distinct clients costs memory only up to `maxClients`: the
 * least recently seen one is forgotten first (it starts again with a full bucket, which is the
 * lenient side to err on).
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    private readonly maxClients = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token for `client`; the answer says whether it may go on, or in how many ms it may retry. */
  take(client: string): { allowed: true } | { allowed: false; retryAfterMs: number } {
    const now = this.now();
    const refillPerMs = this.capacity / this.windowMs;
    const bucket = this.#buckets.get(client) ?? { tokens: this.capacity, updatedAt: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * refillPerMs);
    bucket.updatedAt = now;
    // Re-inserting keeps the map in least-recently-seen order for eviction.
    this.#buckets.delete(client);
    this.#buckets.set(client, bucket);
    if (this.#buckets.size > this.maxClients) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) {
        this.#buckets.delete(oldest);
      }
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / refillPerMs) };
  }
}
