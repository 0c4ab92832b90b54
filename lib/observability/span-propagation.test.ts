import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import {
  type BaseTransportOptions,
  type Client,
  createTransport,
  getClient,
  getCurrentScope,
  withIsolationScope,
} from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { startRequestScopes } from '@/lib/observability/request-scopes';
import { traceIfSampled } from '@/lib/observability/request-tracing';
import { requestTraceIds, scopeTracePropagator } from '@/lib/observability/span-propagation';
import { runWithClientAddress } from '@/lib/server/seam.mjs';

const callerTraceId = '0123456789abcdef0123456789abcdef';
const callerSpanId = 'fedcba9876543210';

beforeAll(() => {
  // Errors only, as with OpenTelemetry owning the spans: Sentry's own tracing stays off.
  Sentry.init({
    dsn: 'http://key@127.0.0.1:9/1',
    environment: 'test',
    release: 'r1',
    defaultIntegrations: false,
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    transport: (options: BaseTransportOptions) => createTransport(options, async () => ({})),
  });
  // As the server keeps each request's scopes (lib/server/app-server.ts).
  startRequestScopes();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  await Sentry.close();
  context.disable();
});

/** Runs `work` as server.mjs runs a request with `headers`, its trace decided as it arrived. */
function asDecidedRequest<T>(headers: Record<string, string>, sampleRate: number, work: () => T): T {
  return runWithClientAddress('127.0.0.1', () => traceIfSampled(headers, sampleRate, getClient(), work));
}

function injected(activeContext = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  scopeTracePropagator(getClient() as Client, 0.1).inject(activeContext, carrier, defaultTextMapSetter);
  return carrier;
}

describe('scopeTracePropagator', () => {
  it("continues the caller's span that the request's scope continues, with the caller's decision", () =>
    asDecidedRequest({ 'sentry-trace': `${callerTraceId}-${callerSpanId}-1` }, 0.1, () => {
      const parent = trace.getSpanContext(
        scopeTracePropagator(getClient() as Client, 0.1).extract(ROOT_CONTEXT, {}, defaultTextMapGetter),
      );
      expect(parent).toEqual({
        traceId: callerTraceId,
        spanId: callerSpanId,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
    }));

  it('reads the decision from the scope, not from headers a second time', () =>
    asDecidedRequest({}, 0.1, () => {
      // A request that continued no trace as it arrived continues none here either (decideRequestTrace).
      const carrier = { 'sentry-trace': `${callerTraceId}-${callerSpanId}-1` };
      expect(
        trace.getSpanContext(
          scopeTracePropagator(getClient() as Client, 0.1).extract(ROOT_CONTEXT, carrier, defaultTextMapGetter),
        ),
      ).toBe(undefined);
    }));

  it("continues the caller's header where nothing decided, as under next dev", () =>
    withIsolationScope(() => {
      const carrier = { 'sentry-trace': `${callerTraceId}-${callerSpanId}-0` };
      expect(
        trace.getSpanContext(
          scopeTracePropagator(getClient() as Client, 0.1).extract(ROOT_CONTEXT, carrier, defaultTextMapGetter),
        ),
      ).toEqual({
        traceId: callerTraceId,
        spanId: callerSpanId,
        traceFlags: TraceFlags.NONE,
        isRemote: true,
      });
    }));

  it("decides the caller's trace where nothing decided as server.mjs decides it: by its random number when it sent no decision", () =>
    withIsolationScope(() => {
      const flagsOf = (headers: Record<string, string>) =>
        trace.getSpanContext(
          scopeTracePropagator(getClient() as Client, 0.1).extract(ROOT_CONTEXT, headers, defaultTextMapGetter),
        )?.traceFlags;
      const undecided = `${callerTraceId}-${callerSpanId}`;
      const baggage = (fields: string) => `sentry-trace_id=${callerTraceId},${fields}`;
      expect(flagsOf({ 'sentry-trace': undecided, baggage: baggage('sentry-sample_rand=0.05') })).toBe(
        TraceFlags.SAMPLED,
      );
      expect(flagsOf({ 'sentry-trace': undecided, baggage: baggage('sentry-sample_rand=0.9') })).toBe(TraceFlags.NONE);
      expect(flagsOf({ 'sentry-trace': undecided, baggage: baggage('sentry-sampled=false') })).toBe(TraceFlags.NONE);
      // Ids of all zeros are no parent: the sampler decides a fresh trace.
      expect(flagsOf({ 'sentry-trace': `${'0'.repeat(32)}-${callerSpanId}-1` })).toBeUndefined();
    }));

  it("tells the browser not to sample an unsampled request's page, in the caller's trace", () => {
    const callerBaggage = `sentry-trace_id=${callerTraceId},sentry-public_key=caller,sentry-sampled=false`;
    asDecidedRequest({ 'sentry-trace': `${callerTraceId}-${callerSpanId}-0`, baggage: callerBaggage }, 1, () => {
      const headers = injected();
      expect(headers['sentry-trace']).toMatch(new RegExp(`^${callerTraceId}-[0-9a-f]{16}-0$`));
      // The head's sampling context, passed on as it came.
      expect(headers.baggage).toContain('sentry-public_key=caller');
      expect(headers.baggage).toContain('sentry-sampled=false');
    });
  });

  it('describes a trace this server began as its head: the project, environment, release and random number', () =>
    asDecidedRequest({}, 0, () => {
      const { sampleRand } = getCurrentScope().getPropagationContext();
      const { baggage } = injected();
      for (const entry of ['sentry-public_key=key', 'sentry-environment=test', 'sentry-release=r1']) {
        expect(baggage).toContain(entry);
      }
      expect(baggage).toContain(`sentry-sample_rand=${sampleRand}`);
    }));

  it("names the active span, sampled, for a sampled request's page", () =>
    asDecidedRequest({}, 1, () => {
      const tracer = new BasicTracerProvider({ idGenerator: requestTraceIds }).getTracer('test');
      const span = tracer.startSpan('GET /status');
      const { traceId, spanId } = span.spanContext();
      const headers = injected(trace.setSpan(ROOT_CONTEXT, span));
      expect(headers['sentry-trace']).toBe(`${traceId}-${spanId}-1`);
      expect(headers.baggage).toContain(`sentry-trace_id=${traceId}`);
      expect(headers.baggage).toContain('sentry-sampled=true');
      span.end();
    }));
});

describe('requestTraceIds', () => {
  it("starts a root span in the trace of the request's scope, whose random number decided it", () =>
    asDecidedRequest({}, 1, () => {
      const tracer = new BasicTracerProvider({ idGenerator: requestTraceIds }).getTracer('test');
      const span = tracer.startSpan('GET /');
      expect(span.spanContext().traceId).toBe(getCurrentScope().getPropagationContext().traceId);
      span.end();
    }));
});
