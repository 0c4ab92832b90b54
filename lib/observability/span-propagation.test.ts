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
import { type BaseTransportOptions, createTransport, getCurrentScope, withIsolationScope } from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { isSampledRequest } from '@/lib/observability/request-tracing';
import { scopeTraceIds, scopeTracePropagator } from '@/lib/observability/span-propagation';

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
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  await Sentry.close();
  context.disable();
});

function injected(activeContext = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  scopeTracePropagator.inject(activeContext, carrier, defaultTextMapSetter);
  return carrier;
}

describe('scopeTracePropagator', () => {
  it("continues the caller's span that the request's scope continues, with the caller's decision", () =>
    withIsolationScope(() => {
      isSampledRequest({ 'sentry-trace': `${callerTraceId}-${callerSpanId}-1` }, 0.1);
      const parent = trace.getSpanContext(scopeTracePropagator.extract(ROOT_CONTEXT, {}, defaultTextMapGetter));
      expect(parent).toEqual({
        traceId: callerTraceId,
        spanId: callerSpanId,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
    }));

  it('reads the decision from the scope, not from headers a second time', () =>
    withIsolationScope(() => {
      const carrier = { 'sentry-trace': `${callerTraceId}-${callerSpanId}-1` };
      expect(trace.getSpanContext(scopeTracePropagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter))).toBe(
        undefined,
      );
    }));

  it("tells the browser not to sample an unsampled request's page, in the caller's trace", () =>
    withIsolationScope(() => {
      isSampledRequest({ 'sentry-trace': `${callerTraceId}-${callerSpanId}-0` }, 1);
      const headers = injected();
      expect(headers['sentry-trace']).toMatch(new RegExp(`^${callerTraceId}-[0-9a-f]{16}-0$`));
      expect(headers.baggage).toContain(`sentry-trace_id=${callerTraceId}`);
      expect(headers.baggage).toContain('sentry-sampled=false');
    }));

  it('describes a trace this server began as its head: the project, environment, release and random number', () =>
    withIsolationScope(() => {
      isSampledRequest({}, 0);
      const { sampleRand } = getCurrentScope().getPropagationContext();
      const { baggage } = injected();
      for (const entry of ['sentry-public_key=key', 'sentry-environment=test', 'sentry-release=r1']) {
        expect(baggage).toContain(entry);
      }
      expect(baggage).toContain(`sentry-sample_rand=${sampleRand}`);
    }));

  it("names the active span, sampled, for a sampled request's page", () =>
    withIsolationScope(() => {
      isSampledRequest({}, 1);
      const tracer = new BasicTracerProvider({ idGenerator: scopeTraceIds }).getTracer('test');
      const span = tracer.startSpan('GET /status');
      const { traceId, spanId } = span.spanContext();
      const headers = injected(trace.setSpan(ROOT_CONTEXT, span));
      expect(headers['sentry-trace']).toBe(`${traceId}-${spanId}-1`);
      expect(headers.baggage).toContain(`sentry-trace_id=${traceId}`);
      expect(headers.baggage).toContain('sentry-sampled=true');
      span.end();
    }));
});

describe('scopeTraceIds', () => {
  it("starts a root span in the trace of the request's scope, whose random number decided it", () =>
    withIsolationScope(() => {
      const tracer = new BasicTracerProvider({ idGenerator: scopeTraceIds }).getTracer('test');
      const span = tracer.startSpan('GET /');
      expect(span.spanContext().traceId).toBe(getCurrentScope().getPropagationContext().traceId);
      span.end();
    }));
});
