/**
 * Tokens that come back with time, `refillPerMs` up to `capacity`, starting full: the mechanism
 * behind each client's rate limit (lib/server/rate-limiter.ts) and the budget of callers' sampled
 * traces (lib/observability/caller-sampling-budget.ts). The caller passes the time, from a
 * monotonic clock: one set back refills nothing, and counts on from there.
 */
export class TokenBucket {
  #tokens: number;
  #updatedAt: number;

  constructor(
    private readonly capacity: number,
    private readonly refillPerMs: number,
    now: number,
  ) {
    this.#tokens = capacity;
    this.#updatedAt = now;
  }

  /** Adds tokens earned other than by time, up to the capacity. */
  deposit(tokens: number): void {
    this.#tokens = Math.min(this.capacity, this.#tokens + tokens);
  }

  /** Takes a token, if there is one once the time since the last look has refilled the bucket. */
  take(now: number): boolean {
    this.deposit(Math.max(0, now - this.#updatedAt) * this.refillPerMs);
    this.#updatedAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** How long after the last look the next token is there. */
  msUntilToken(): number {
    return Math.ceil((1 - this.#tokens) / this.refillPerMs);
  }
}
