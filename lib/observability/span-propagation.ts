import 'server-only';
import { isSpanContextValid, type SpanContext, type TextMapPropagator, TraceFlags, trace } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { type IdGenerator, RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import {
  type Client,
  type DynamicSamplingContext,
  dynamicSamplingContextToSentryBaggageHeader,
  generateSentryTraceHeader,
  getCurrentScope,
  getDynamicSamplingContextFromClient,
  type PropagationContext,
} from '@sentry/core';
import { randomSpanId } from '@/lib/observability/random-ids';
import { requestPropagationContext } from '@/lib/observability/request-scopes';
import { decideRequestTrace } from '@/lib/observability/request-tracing';
import { isRequestDecided } from '@/lib/server/seam.mjs';

const SENTRY_TRACE = 'sentry-trace';
const BAGGAGE = 'baggage';

/**
 * Sentry's trace headers for the OpenTelemetry spans the server records. The request's trace was
 * decided from its headers as it arrived, and its Sentry scope starts in that trace
 * (lib/observability/request-tracing.ts: the caller's trace it continues, or a fresh one, sampled
 * or not), so both directions read the scope, not the headers a second time (only where nothing
 * decided, under `next dev`, the caller's headers, decided the same way):
 * - in, Next's root span continues the caller's span when the scope continues one;
 * - out (Next's trace meta tags, outgoing requests), the active span when there is one, else, for
 *   a request not sampled, the scope: its page tells the browser not to sample it either.
 */
export function scopeTracePropagator(client: Client, sampleRate: number): TextMapPropagator {
  return {
    fields: () => [SENTRY_TRACE, BAGGAGE],

    extract(context, carrier, getter) {
      // Where server.mjs did not decide (`next dev`), the caller's headers are read here instead,
      // and decided as server.mjs decides them: a trace this continues none of, the sampler decides.
      const { traceId, parentSpanId, sampled } = isRequestDecided()
        ? propagationNow()
        : decideRequestTrace(
            { [SENTRY_TRACE]: getter.get(carrier, SENTRY_TRACE), [BAGGAGE]: getter.get(carrier, BAGGAGE) },
            sampleRate,
            client,
          ).propagation;
      if (parentSpanId === undefined) return context;
      return trace.setSpanContext(context, {
        traceId,
        spanId: parentSpanId,
        traceFlags: sampled === false ? TraceFlags.NONE : TraceFlags.SAMPLED,
        isRemote: true,
      });
    },

    inject(context, carrier, setter) {
      // Work under `Sentry.suppressTracing` carries no trace out, as with OpenTelemetry's own
      // propagators and Sentry's fetch integration.
      if (isTracingSuppressed(context)) return;
      const propagation = propagationNow();
      const spanContext = trace.getSpan(context)?.spanContext();
      const active = spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext : undefined;
      const traceId = active?.traceId ?? propagation.traceId;
      const sampled = active ? isSampledContext(active) : propagation.sampled;
      // Without a span id of its own, the header gets a fresh one, as the SDK's does.
      setter.set(
        carrier,
        SENTRY_TRACE,
        generateSentryTraceHeader(traceId, active?.spanId ?? propagation.propagationSpanId ?? randomSpanId(), sampled),
      );
      const baggage = dynamicSamplingContextToSentryBaggageHeader(
        samplingContextOf(client, propagation, traceId, sampled, sampleRate),
      );
      if (baggage) setter.set(carrier, BAGGAGE, baggage);
    },
  };
}

/** The propagation context of the work in progress: its request's, or its scope's. */
function propagationNow(): PropagationContext {
  return requestPropagationContext() ?? getCurrentScope().getPropagationContext();
}

/**
 * The sampling context of the trace of `propagation`, as Sentry's SDKs write it: the caller's, frozen, when
 * the trace continues one that came with it; else this server's as the trace's head (project,
 * environment, release, the rate and the random number that decided, and `head`'s extra fields).
 * Built here rather than asked of the SDK: with `openTelemetryIntegration()` and a span active,
 * the SDK's scope gives none.
 */
export function samplingContextOf(
  client: Client,
  propagation: PropagationContext,
  traceId: string,
  sampled: boolean | undefined,
  sampleRate: number,
  head: Partial<DynamicSamplingContext> = {},
): Partial<DynamicSamplingContext> {
  if (propagation.dsc !== undefined) return propagation.dsc;
  return {
    ...getDynamicSamplingContextFromClient(traceId, client),
    sample_rate: String(sampleRate),
    sample_rand: String(propagation.sampleRand),
    ...(sampled === undefined ? {} : { sampled: String(sampled) }),
    ...head,
  };
}

const randomIds = new RandomIdGenerator();

/**
 * A root span of a request server.mjs decided starts in the trace of the request's scope, whose
 * random number decided its sampling, so the trace the browser continues is the one that was
 * decided. Elsewhere (`next dev`, Next's start-up work), a fresh trace.
 */
export const requestTraceIds: IdGenerator = {
  generateTraceId: () => (isRequestDecided() ? propagationNow().traceId : randomIds.generateTraceId()),
  generateSpanId: () => randomIds.generateSpanId(),
};

/** Whether a span context carries the sampled flag. */
function isSampledContext(spanContext: SpanContext): boolean {
  return (spanContext.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
}
