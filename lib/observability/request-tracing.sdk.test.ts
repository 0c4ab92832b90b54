import { context, propagation, trace } from '@opentelemetry/api';
import { type BaseTransportOptions, createTransport } from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { CallerSamplingBudget } from '@/lib/observability/caller-sampling-budget';
import {
  decideRequestTrace,
  isolateRequest,
  startRequestTracing,
  traceIfSampled,
} from '@/lib/observability/request-tracing';
import { runWithClientAddress } from '@/lib/server/seam.mjs';

// The decision made as a request arrives must be the one the SDK makes later, when Next opens the
// request's root span: checked here against the SDK itself, through Next's own tracer, so that an
// upgrade of either that decides differently fails this test rather than dropping traces.

type NextTracer = {
  isOpenTelemetryEnabled(): boolean;
  withPropagatedContext<T>(carrier: object, work: () => T): T;
  trace<T>(type: string, options: { spanName: string }, work: (span: { isRecording(): boolean }) => T): T;
};
const nextTracer = () => (require('next/dist/server/lib/trace/tracer') as { getTracer(): NextTracer }).getTracer();
const { BaseServerSpan } = require('next/dist/server/lib/trace/constants') as {
  BaseServerSpan: { handleRequest: string };
};

const RATE = 0.1;

beforeAll(() => {
  Sentry.init({
    dsn: 'http://key@127.0.0.1:9/1',
    tracesSampleRate: RATE,
    traceLifecycle: 'static',
    defaultIntegrations: false,
    enableRuntimeChannelInjection: false,
    // Transactions go nowhere.
    transport: (options: BaseTransportOptions) => createTransport(options, async () => ({})),
  });
});
afterAll(async () => {
  await Sentry.close();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** Whether the SDK records the root span Next opens for a request, in the current context. */
function recordsRootSpan(): boolean {
  return nextTracer().trace(BaseServerSpan.handleRequest, { spanName: 'GET /' }, (span) => span.isRecording());
}

/** Whether the SDK records the root span Next opens for a request with `headers`. */
function sdkRecords(headers: Record<string, string>): boolean {
  return Sentry.withIsolationScope(() => nextTracer().withPropagatedContext(headers, recordsRootSpan));
}

const traceId = '0123456789abcdef0123456789abcdef';
const sentryTrace = (flag: string) => `${traceId}-0123456789abcdef${flag}`;
const baggage = (entries: string) => `sentry-trace_id=${traceId},${entries}`;

describe("the decision as a request arrives, against the SDK's as Next opens the request's span", () => {
  it.each<[string, Record<string, string>]>([
    ["the caller's sentry-trace says sampled", { 'sentry-trace': sentryTrace('-1') }],
    ["the caller's sentry-trace says not sampled", { 'sentry-trace': sentryTrace('-0') }],
    [
      'its baggage says sampled, its sentry-trace nothing, the random number above the rate',
      { 'sentry-trace': sentryTrace(''), baggage: baggage('sentry-sampled=true,sentry-sample_rand=0.5') },
    ],
    [
      'its baggage says not sampled, its sentry-trace nothing, the random number below the rate',
      { 'sentry-trace': sentryTrace(''), baggage: baggage('sentry-sampled=false,sentry-sample_rand=0.05') },
    ],
    [
      "the caller's sentry-trace says sampled, with a random number of 1, which no rate samples",
      { 'sentry-trace': sentryTrace('-1'), baggage: baggage('sentry-sample_rand=1') },
    ],
    [
      'nobody decided, the random number below the rate',
      { 'sentry-trace': sentryTrace(''), baggage: baggage('sentry-sample_rand=0.05') },
    ],
    [
      'nobody decided, the random number above the rate',
      { 'sentry-trace': sentryTrace(''), baggage: baggage('sentry-sample_rand=0.5') },
    ],
  ])('agrees when %s', (_, headers) => {
    expect(decideRequestTrace(headers, RATE, Sentry.getClient()).isSampled).toBe(sdkRecords(headers));
  });

  it('agrees for fresh traces, whose random number was drawn for the request', () => {
    const decisions = Array.from({ length: 200 }, () =>
      Sentry.withIsolationScope(() => {
        const { isSampled, propagation } = decideRequestTrace({}, RATE, Sentry.getClient());
        // The SDK's answer in a scope of the same fresh trace, without our decision in it, which
        // the SDK would otherwise follow.
        Sentry.getCurrentScope().setPropagationContext({
          traceId: propagation.traceId,
          sampleRand: propagation.sampleRand,
        });
        return [isSampled, recordsRootSpan()];
      }),
    );
    for (const [decided, recorded] of decisions) expect(decided).toBe(recorded);
    // Both answers occur, so the comparison was not of one constant.
    expect(new Set(decisions.map(([decided]) => decided)).size).toBe(2);
  });

  it.each([
    ['nobody decided and sent no random number', { 'sentry-trace': sentryTrace('') }],
    [
      'nobody decided and the random number is none',
      { 'sentry-trace': sentryTrace(''), baggage: baggage('sentry-sample_rand=abc') },
    ],
  ])('decides by a number drawn for the trace, as the SDK does, when %s', (_, headers) => {
    // The SDK draws a number of its own there too: each answer occurs, at the rate.
    const decided = Array.from({ length: 200 }, () => decideRequestTrace(headers, RATE, Sentry.getClient()).isSampled);
    const recorded = Array.from({ length: 200 }, () => sdkRecords(headers));
    expect(new Set(decided)).toEqual(new Set([true, false]));
    expect(new Set(recorded)).toEqual(new Set([true, false]));
    expect(decided.filter(Boolean).length).toBeLessThan(60);
  });
});

describe("Next's spans, per request", () => {
  it('are opened for a sampled request and not for an unsampled one, inside a request server.mjs decides for', () => {
    startRequestTracing();
    const nextTraces = (headers: Record<string, string>) =>
      runWithClientAddress('127.0.0.1', () =>
        traceIfSampled(headers, RATE, Sentry.getClient(), () => nextTracer().isOpenTelemetryEnabled()),
      );
    expect(nextTraces({ 'sentry-trace': sentryTrace('-1') })).toBe(true);
    expect(nextTraces({ 'sentry-trace': sentryTrace('-0') })).toBe(false);
    // Outside such a request nothing decided ahead, and the SDK decides as Next opens its spans.
    expect(nextTracer().isOpenTelemetryEnabled()).toBe(true);
  });

  it('are not opened for a health or readiness probe, even one its caller sampled', () => {
    startRequestTracing();
    const sampled = { 'sentry-trace': sentryTrace('-1') };
    const nextTraces = (url: string) =>
      runWithClientAddress('127.0.0.1', () =>
        isolateRequest(
          { url, headers: sampled },
          1,
          Sentry.getClient(),
          () => nextTracer().isOpenTelemetryEnabled(),
          new CallerSamplingBudget(1),
        ),
      );
    expect(nextTraces('/api/health')).toBe(false);
    expect(nextTraces('/api/ready?from=balancer')).toBe(false);
    expect(nextTraces('/api/healthy')).toBe(true);
    expect(nextTraces('/status')).toBe(true);
  });

  it("are opened for no more of a flood its callers forced sampled than the server's budget grants", () => {
    startRequestTracing();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const callerBudget = new CallerSamplingBudget(RATE, () => 0);
    const traced = Array.from({ length: 400 }, () =>
      runWithClientAddress('127.0.0.1', () =>
        isolateRequest(
          { url: '/status', headers: { 'sentry-trace': sentryTrace('-1') } },
          RATE,
          Sentry.getClient(),
          () => nextTracer().isOpenTelemetryEnabled(),
          callerBudget,
        ),
      ),
    ).filter(Boolean).length;
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
    // A hundred at once and 0.2 of a token a request: 180 of 400 at most, where all 400 would have been.
    expect(traced).toBeGreaterThanOrEqual(175);
    expect(traced).toBeLessThanOrEqual(180);
  });
});
