import type { Client } from '@sentry/core';
import { getCurrentScope, withIsolationScope } from '@sentry/nextjs';
import { isSampledRequest } from '@/lib/observability/request-tracing';

const traceId = '0123456789abcdef0123456789abcdef';
const sentryTrace = (flag: string) => `${traceId}-0123456789abcdef${flag}`;

describe('isSampledRequest', () => {
  it("follows the caller's decision when the request continues a sampled or unsampled trace", () => {
    withIsolationScope(() => expect(isSampledRequest({ 'sentry-trace': sentryTrace('-1') }, 0)).toBe(true));
    withIsolationScope(() => expect(isSampledRequest({ 'sentry-trace': sentryTrace('-0') }, 1)).toBe(false));
  });

  it("decides by the trace's random number against the rate when nobody decided before", () => {
    const baggage = (rand: number) => `sentry-trace_id=${traceId},sentry-sample_rand=${rand}`;
    withIsolationScope(() =>
      expect(isSampledRequest({ 'sentry-trace': sentryTrace(''), baggage: baggage(0.05) }, 0.1)).toBe(true),
    );
    withIsolationScope(() =>
      expect(isSampledRequest({ 'sentry-trace': sentryTrace(''), baggage: baggage(0.5) }, 0.1)).toBe(false),
    );
    withIsolationScope(() => {
      getCurrentScope().setPropagationContext({ traceId, sampleRand: 0.09 });
      expect(isSampledRequest({}, 0.1)).toBe(true);
    });
    withIsolationScope(() => {
      getCurrentScope().setPropagationContext({ traceId, sampleRand: 0.1 });
      expect(isSampledRequest({}, 0.1)).toBe(false);
    });
  });

  it("follows the decision the caller's baggage carries when its sentry-trace header has none, as the SDK does", () => {
    const baggage = (sampled: boolean, rand: number) =>
      `sentry-trace_id=${traceId},sentry-sampled=${sampled},sentry-sample_rand=${rand}`;
    withIsolationScope(() =>
      expect(isSampledRequest({ 'sentry-trace': sentryTrace(''), baggage: baggage(true, 0.5) }, 0.1)).toBe(true),
    );
    withIsolationScope(() => {
      expect(isSampledRequest({ 'sentry-trace': sentryTrace(''), baggage: baggage(false, 0.05) }, 0.1)).toBe(false);
      expect(getCurrentScope().getPropagationContext()).toMatchObject({ traceId, sampled: false });
    });
  });

  it("marks an unsampled request's scope unsampled, keeping the caller's trace id, so the page tells the browser so", () => {
    withIsolationScope(() => {
      isSampledRequest({ 'sentry-trace': sentryTrace('-0') }, 1);
      expect(getCurrentScope().getPropagationContext()).toMatchObject({ traceId, sampled: false });
    });
    withIsolationScope(() => {
      getCurrentScope().setPropagationContext({ traceId, sampleRand: 0.7 });
      isSampledRequest({}, 0.1);
      expect(getCurrentScope().getPropagationContext()).toMatchObject({ traceId, sampled: false });
    });
  });

  it("decides a continued trace without a decision or a valid random number by one drawn for it, and keeps the caller's trace", () => {
    for (const baggage of [undefined, `sentry-trace_id=${traceId},sentry-sample_rand=abc`]) {
      const decisions = Array.from({ length: 200 }, () =>
        withIsolationScope(() => {
          const isSampled = isSampledRequest({ 'sentry-trace': sentryTrace(''), ...(baggage ? { baggage } : {}) }, 0.1);
          const propagation = getCurrentScope().getPropagationContext();
          expect(propagation).toMatchObject({ traceId, parentSpanId: '0123456789abcdef', sampled: isSampled });
          expect(isSampled).toBe(propagation.sampleRand < 0.1);
          return isSampled;
        }),
      );
      // At a rate of 0.1, not every one: the rate applies.
      expect(decisions.filter(Boolean).length).toBeLessThan(60);
    }
  });

  it("does not continue another organization's trace: a fresh trace decides, with the caller's decision and trace id ignored", () => {
    // What the SDK reads of a client to know its organization (o1.ingest.sentry.io, or `orgId`).
    const ourOrganization = { getOptions: () => ({ orgId: '1' }), getDsn: () => undefined } as unknown as Client;
    const foreignSampled = {
      'sentry-trace': sentryTrace('-1'),
      baggage: `sentry-trace_id=${traceId},sentry-org_id=2,sentry-sample_rand=0.01`,
    };
    withIsolationScope(() => {
      getCurrentScope().setClient(ourOrganization);
      getCurrentScope().setPropagationContext({ traceId: 'fedcba9876543210fedcba9876543210', sampleRand: 0.99 });
      expect(isSampledRequest(foreignSampled, 0.1)).toBe(false);
      expect(getCurrentScope().getPropagationContext()).toMatchObject({
        traceId: 'fedcba9876543210fedcba9876543210',
        sampled: false,
      });
    });
    withIsolationScope(() => {
      getCurrentScope().setClient(ourOrganization);
      const ourSampled = { ...foreignSampled, baggage: foreignSampled.baggage.replace('org_id=2', 'org_id=1') };
      expect(isSampledRequest(ourSampled, 0.1)).toBe(true);
    });
  });
});
