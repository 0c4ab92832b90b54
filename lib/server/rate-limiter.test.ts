import { RateLimiter } from '@/lib/server/rate-limiter';

describe('RateLimiter', () => {
  it('lets a client through up to its capacity, then says when to retry', () => {
    let now = 0;
    const limiter = new RateLimiter(3, 60_000, 100, () => now);
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterMs: 20_000 });
    now = 20_000;
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('takes nothing from a client when its clock goes back, and refills as it goes on', () => {
    let now = 3_600_000;
    const limiter = new RateLimiter(2, 60_000, 100, () => now);
    expect([limiter.take('a').allowed, limiter.take('a').allowed]).toEqual([true, true]);
    now = 0;
    expect(limiter.take('a').allowed).toBe(false);
    now = 30_000;
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('keeps clients apart', () => {
    const limiter = new RateLimiter(1, 60_000, 100, () => 0);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('forgets the least recently seen client beyond its bound', () => {
    const limiter = new RateLimiter(1, 60_000, 2, () => 0);
    limiter.take('a');
    limiter.take('b');
    limiter.take('c');
    // 'a' was evicted, so it starts again with a full bucket; 'c' is still remembered.
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('c').allowed).toBe(false);
  });
});
