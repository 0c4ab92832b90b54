import type { Client } from '@sentry/core';
import { CallerSamplingBudget } from '@/lib/observability/caller-sampling-budget';
import { decideRequestTrace } from '@/lib/observability/request-tracing';

const traceId = '0123456789abcdef0123456789abcdef';
const sentryTrace = (flag: string) => `${traceId}-0123456789abcdef${flag}`;

/** A fresh trace's random number, as `Math.random()` would draw it. */
function withRandomDrawn<T>(sampleRand: number, work: () => T): T {
  const random = vi.spyOn(Math, 'random').mockReturnValue(sampleRand);
  try {
    return work();
  } finally {
    random.mockRestore();
  }
}

describe('decideRequestTrace', () => {
  it("follows the caller's decision when the request continues a sampled or unsampled trace", () => {
    expect(decideRequestTrace({ 'sentry-trace': sentryTrace('-1') }, 0, undefined).isSampled).toBe(true);
    expect(decideRequestTrace({ 'sentry-trace': sentryTrace('-0') }, 1, undefined).isSampled).toBe(false);
  });

  it("decides by the trace's random number against the rate when nobody decided before", () => {
    const baggage = (rand: number) => `sentry-trace_id=${traceId},sentry-sample_rand=${rand}`;
    expect(
      decideRequestTrace({ 'sentry-trace': sentryTrace(''), baggage: baggage(0.05) }, 0.1, undefined).isSampled,
    ).toBe(true);
    expect(
      decideRequestTrace({ 'sentry-trace': sentryTrace(''), baggage: baggage(0.5) }, 0.1, undefined).isSampled,
    ).toBe(false);
    expect(withRandomDrawn(0.09, () => decideRequestTrace({}, 0.1, undefined))).toMatchObject({
      isSampled: true,
      propagation: { sampleRand: 0.09, sampled: true },
    });
    expect(withRandomDrawn(0.1, () => decideRequestTrace({}, 0.1, undefined))).toMatchObject({
      isSampled: false,
      propagation: { sampleRand: 0.1, sampled: false },
    });
  });

  it("follows the decision the caller's baggage carries when its sentry-trace header has none, as the SDK does", () => {
    const baggage = (sampled: boolean, rand: number) =>
      `sentry-trace_id=${traceId},sentry-sampled=${sampled},sentry-sample_rand=${rand}`;
    expect(
      decideRequestTrace({ 'sentry-trace': sentryTrace(''), baggage: baggage(true, 0.5) }, 0.1, undefined).isSampled,
    ).toBe(true);
    const unsampled = decideRequestTrace(
      { 'sentry-trace': sentryTrace(''), baggage: baggage(false, 0.05) },
      0.1,
      undefined,
    );
    expect(unsampled).toMatchObject({ isSampled: false, propagation: { traceId, sampled: false } });
  });

  it("marks an unsampled request's trace unsampled, keeping the caller's trace id, so the page tells the browser so", () => {
    expect(decideRequestTrace({ 'sentry-trace': sentryTrace('-0') }, 1, undefined).propagation).toMatchObject({
      traceId,
      sampled: false,
    });
    const fresh = withRandomDrawn(0.7, () => decideRequestTrace({}, 0.1, undefined)).propagation;
    expect(fresh).toMatchObject({ sampleRand: 0.7, sampled: false });
    expect(fresh.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('draws a trace of its own for each request that continues none', () => {
    const traceIds = new Set(
      Array.from({ length: 20 }, () => decideRequestTrace({}, 0.1, undefined).propagation.traceId),
    );
    expect(traceIds.size).toBe(20);
  });

  it("decides a continued trace without a decision or a valid random number by one drawn for it, and keeps the caller's trace", () => {
    for (const baggage of [undefined, `sentry-trace_id=${traceId},sentry-sample_rand=abc`]) {
      const decisions = Array.from({ length: 200 }, () => {
        const { isSampled, propagation } = decideRequestTrace(
          { 'sentry-trace': sentryTrace(''), ...(baggage ? { baggage } : {}) },
          0.1,
          undefined,
        );
        expect(propagation).toMatchObject({ traceId, parentSpanId: '0123456789abcdef', sampled: isSampled });
        expect(isSampled).toBe(propagation.sampleRand < 0.1);
        return isSampled;
      });
      // At a rate of 0.1, not every one: the rate applies.
      expect(decisions.filter(Boolean).length).toBeLessThan(60);
    }
  });

  it('continues no trace whose ids are all zeros, which no span can have as its parent: a fresh trace decides', () => {
    const zeros = (length: number) => '0'.repeat(length);
    for (const header of [`${zeros(32)}-0123456789abcdef-1`, `${traceId}-${zeros(16)}-1`]) {
      const { isSampled, propagation } = withRandomDrawn(0.99, () =>
        decideRequestTrace({ 'sentry-trace': header }, 0.1, undefined),
      );
      expect(isSampled).toBe(false);
      expect(propagation.parentSpanId).toBeUndefined();
      expect(propagation.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(propagation.traceId).not.toBe(zeros(32));
    }
  });

  it("does not continue another organization's trace: a fresh trace decides, with the caller's decision and trace id ignored", () => {
    // What the SDK reads of a client to know its organization (o1.ingest.sentry.io, or `orgId`).
    const ourOrganization = { getOptions: () => ({ orgId: '1' }), getDsn: () => undefined } as unknown as Client;
    const foreignSampled = {
      'sentry-trace': sentryTrace('-1'),
      baggage: `sentry-trace_id=${traceId},sentry-org_id=2,sentry-sample_rand=0.01`,
    };
    const foreign = withRandomDrawn(0.99, () => decideRequestTrace(foreignSampled, 0.1, ourOrganization));
    expect(foreign.isSampled).toBe(false);
    expect(foreign.propagation.traceId).not.toBe(traceId);
    expect(foreign.propagation.parentSpanId).toBeUndefined();
    const ourSampled = { ...foreignSampled, baggage: foreignSampled.baggage.replace('org_id=2', 'org_id=1') };
    expect(decideRequestTrace(ourSampled, 0.1, ourOrganization).isSampled).toBe(true);
  });
});

describe("decideRequestTrace within a budget of callers' sampled traces", () => {
  const RATE = 0.1;
  // The clock stands still: what the budget grants comes from the requests alone, and its first hundred.
  const budget = () => new CallerSamplingBudget(RATE, () => 0);
  const sampledCount = (decisions: { isSampled: boolean }[]) => decisions.filter((d) => d.isSampled).length;

  beforeEach(() => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    ['its sampled flag', { 'sentry-trace': sentryTrace('-1') }],
    ['its baggage', { 'sentry-trace': sentryTrace(''), baggage: `sentry-trace_id=${traceId},sentry-sampled=true` }],
    [
      'a random number under the rate',
      { 'sentry-trace': sentryTrace(''), baggage: `sentry-trace_id=${traceId},sentry-sample_rand=0.01` },
    ],
  ])('samples a flood that forces sampling by %s at no more than twice the rate', (_, headers) => {
    const callerBudget = budget();
    const decisions = Array.from({ length: 10_000 }, () => decideRequestTrace(headers, RATE, undefined, callerBudget));
    // A hundred at once, then 0.2 of a token a request: 2,100 at most.
    expect(sampledCount(decisions)).toBeGreaterThanOrEqual(2_080);
    expect(sampledCount(decisions)).toBeLessThanOrEqual(2_100);
    expect(decisions.at(-1)?.propagation).toMatchObject({ traceId, parentSpanId: '0123456789abcdef', sampled: false });
  });

  it("keeps a refused request in its caller's trace, unsampled", () => {
    const callerBudget = budget();
    const decisions = Array.from({ length: 200 }, () =>
      decideRequestTrace({ 'sentry-trace': sentryTrace('-1') }, RATE, undefined, callerBudget),
    );
    const refused = decisions.find((decision) => !decision.isSampled);
    expect(refused?.propagation).toMatchObject({ traceId, parentSpanId: '0123456789abcdef', sampled: false });
  });

  it("follows every sampled caller of honest traffic on a quiet server: a page a second, two sampled in a row, each page's sixty prefetches at once", () => {
    let now = 0;
    const callerBudget = new CallerSamplingBudget(RATE, () => now);
    const callerSampled: { isSampled: boolean }[] = [];
    for (let page = 0; page < 100; page++) {
      // Of every ten pages the first two are sampled: as unlucky a run as the rate makes at all often.
      const flag = page % 10 < 2 ? '-1' : '-0';
      decideRequestTrace({}, RATE, undefined, callerBudget);
      for (let prefetch = 0; prefetch < 60; prefetch++) {
        const decision = decideRequestTrace({ 'sentry-trace': sentryTrace(flag) }, RATE, undefined, callerBudget);
        if (flag === '-1') callerSampled.push(decision);
      }
      now += 1_000;
    }
    expect(callerSampled).toHaveLength(1_200);
    expect(sampledCount(callerSampled)).toBe(1_200);
    expect(console.warn).not.toHaveBeenCalled();
  });

  it('leaves the traces it starts itself to the rate alone', () => {
    const callerBudget = budget();
    // Each under the rate: the budget would have stopped at about 220 of them.
    const fresh = withRandomDrawn(0.05, () =>
      Array.from({ length: 1_000 }, () => decideRequestTrace({}, RATE, undefined, callerBudget)),
    );
    expect(sampledCount(fresh)).toBe(1_000);
  });
});
