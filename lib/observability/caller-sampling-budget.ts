import 'server-only';
import { TokenBucket } from '@/lib/server/token-bucket';

// Our browser SDK samples page loads at the server's rate, and a sampled page's own requests (its
// prefetches, one a segment of each link it shows, its data fetches and actions) follow its
// decision until the next navigation, which draws again: twice the rate's share leaves honest
// traffic room for a run of sampled pages. The floor and the burst are for a quiet server, where
// a sampled page's prefetches, several dozen, come at once.
const SHARE_OF_RATE = 2;
const FLOOR_PER_SECOND = 10;
const BURST = 100;
// A flood refused goes on for as long as the caller likes: one line a minute says it is going on.
const REPORT_EVERY_MS = 60_000;

/**
 * How many sampled traces callers may have this server continue. Sentry's SDKs follow a caller's
 * decision (`sentry-trace: …-1`, `sentry-sampled=true`, or a `sentry-sample_rand` under the rate),
 * so without a bound any client could have every request it sends traced: each costs the server
 * more than an unsampled one (docs/performance.md) and spends the project's quota. A token
 * bucket: every request decided earns twice the rate's share of a token and the clock ten a
 * second, up to a hundred; each continued trace that would be sampled takes one. Past that, it is
 * not sampled, and stays in its caller's trace, so its errors still join it. One budget for the
 * server, not one per client: behind a load balancer every client has its address, and a share
 * per client would let a flood from many addresses through.
 */
export class CallerSamplingBudget {
  readonly #earnedPerRequest: number;
  readonly #now: () => number;
  readonly #tokens: TokenBucket;
  #refusedUnreported = 0;
  #reportedAt = Number.NEGATIVE_INFINITY;

  // Monotonic: a wall clock set back would otherwise hold the budget back as long.
  constructor(sampleRate: number, now: () => number = () => performance.now()) {
    this.#earnedPerRequest = SHARE_OF_RATE * sampleRate;
    this.#now = now;
    this.#tokens = new TokenBucket(BURST, FLOOR_PER_SECOND / 1000, now());
  }

  /** Counts a request whose trace the server decides, which earns its share of the budget. */
  countRequest(): void {
    this.#tokens.deposit(this.#earnedPerRequest);
  }

  /** Whether a trace continued from a caller may be sampled as it would be; takes its token if so. */
  maySample(): boolean {
    const now = this.#now();
    if (this.#tokens.take(now)) return true;
    this.#refusedUnreported += 1;
    if (now - this.#reportedAt >= REPORT_EVERY_MS) {
      console.warn(
        `Tracing: callers asked for more sampled traces than the budget allows (twice the rate's share of requests, ${FLOOR_PER_SECOND} a second, ${BURST} at once); ${this.#refusedUnreported} continued unsampled since the last such line or the start`,
      );
      this.#refusedUnreported = 0;
      this.#reportedAt = now;
    }
    return false;
  }
}
