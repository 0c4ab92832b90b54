import 'server-only';
import { type Context, isSpanContextValid, type TextMapPropagator, TraceFlags, trace } from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import {
  type Client,
  type DynamicSamplingContext,
  dynamicSamplingContextToSentryBaggageHeader,
  generateSpanId,
  getClient,
  getCurrentScope,
  getDynamicSamplingContextFromScope,
  type Scope,
} from '@sentry/core';

const SENTRY_TRACE = 'sentry-trace';
const BAGGAGE = 'baggage';

/**
 * Sentry's trace headers for the OpenTelemetry spans the server records. The request's trace was
 * decided in its Sentry scope as it arrived (lib/observability/request-tracing.ts: the caller's
 * trace it continues, or a fresh one, sampled or not), so both directions read the scope, never
 * the headers a second time:
 * - in, Next's root span continues the caller's span when the scope continues one;
 * - out (Next's trace meta tags, outgoing requests), the active span when there is one, else, for
 *   a request not sampled, the scope: its page tells the browser not to sample it either.
 */
export const scopeTracePropagator: TextMapPropagator = {
  fields: () => [SENTRY_TRACE, BAGGAGE],

  extract(context: Context): Context {
    const { traceId, parentSpanId, sampled } = getCurrentScope().getPropagationContext();
    if (parentSpanId === undefined) return context;
    return trace.setSpanContext(context, {
      traceId,
      spanId: parentSpanId,
      traceFlags: sampled === false ? TraceFlags.NONE : TraceFlags.SAMPLED,
      isRemote: true,
    });
  },

  inject(context, carrier, setter) {
    const client = getClient();
    if (client === undefined) return;
    const scope = getCurrentScope();
    const propagation = scope.getPropagationContext();
    const spanContext = trace.getSpan(context)?.spanContext();
    const active = spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext : undefined;
    const traceId = active?.traceId ?? propagation.traceId;
    const spanId = active?.spanId ?? propagation.propagationSpanId ?? generateSpanId();
    const sampled = active ? (active.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED : propagation.sampled;
    setter.set(carrier, SENTRY_TRACE, `${traceId}-${spanId}${sampled === undefined ? '' : sampled ? '-1' : '-0'}`);
    const baggage = dynamicSamplingContextToSentryBaggageHeader(samplingContextOf(client, scope, traceId, sampled));
    if (baggage) setter.set(carrier, BAGGAGE, baggage);
  },
};

/**
 * The sampling context of a trace in `scope`: the caller's, frozen, when it continues one; else
 * this server's as the trace's head, with the random number that decided it (which the scope leaves
 * out with Sentry's tracing off), so the services after it sample as it did.
 */
export function samplingContextOf(
  client: Client,
  scope: Scope,
  traceId: string,
  sampled: boolean | undefined,
): Partial<DynamicSamplingContext> {
  const propagation = scope.getPropagationContext();
  const isHead = propagation.parentSpanId === undefined;
  return {
    ...(isHead ? { sample_rand: propagation.sampleRand.toString() } : {}),
    ...getDynamicSamplingContextFromScope(client, scope),
    trace_id: traceId,
    ...(sampled === undefined ? {} : { sampled: String(sampled) }),
  };
}

/**
 * A root span starts in the trace of the scope it starts in: the request's, whose random number
 * decided its sampling, so the trace the browser continues is the one that was decided.
 */
export const scopeTraceIds: IdGenerator = {
  generateTraceId: () => getCurrentScope().getPropagationContext().traceId,
  generateSpanId,
};
