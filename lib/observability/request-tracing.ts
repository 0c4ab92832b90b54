import 'server-only';
import type { IncomingHttpHeaders } from 'node:http';
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import {
  baggageHeaderToDynamicSamplingContext,
  type DynamicSamplingContext,
  getClient,
  getCurrentScope,
  parseSampleRate,
  propagationContextFromHeaders,
  shouldContinueTrace,
} from '@sentry/core';
import { gateNextTracing } from '@/lib/framework-internals.mjs';
import { isRequestTraced, runTraced } from '@/lib/server/seam.mjs';

/** The one header value a client sent under `name`, the first when it sent several. */
function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * With tracing on, Next opens its spans only for requests whose trace is sampled. The SDK decides
 * that when Next opens the request's root span, but by then an unsampled request has already paid
 * for its contexts: so the decision is made once, here, as the SDK will make it, before Next runs.
 */
export function startRequestTracing(): void {
  // OpenTelemetry exports no no-op provider, but a fresh proxy delegates to it.
  const noTracingProvider = new ProxyTracerProvider().getDelegate().constructor;
  gateNextTracing(trace.getTracerProvider(), noTracingProvider, isRequestTraced);
}

/** The caller's decision as its baggage carries it (`sentry-sampled`), which the SDK follows too. */
function decisionInBaggage(dsc: Partial<DynamicSamplingContext> | undefined): boolean | undefined {
  return dsc?.sampled === 'true' ? true : dsc?.sampled === 'false' ? false : undefined;
}

/**
 * Whether the SDK will sample this request's trace, decided as it decides (the trace's random
 * number against the caller's decision, from `sentry-trace` or else its baggage, as a rate of 1 or
 * 0, or else against the rate), from what the request continues or from the fresh trace the
 * isolation scope began. An unsampled request's scope says so, so the page tells the browser not
 * to sample it either, and continues the caller's trace id for its errors.
 * A caller that continues a trace but sent neither a decision nor a valid random number for it
 * leaves the SDK to draw a number of its own, which cannot be known here: such a request is
 * traced, and the SDK decides. A trace the SDK would not continue (another organization's) is not
 * continued. Call it inside the request's isolation scope.
 */
export function isSampledRequest(headers: IncomingHttpHeaders, sampleRate: number): boolean {
  const scope = getCurrentScope();
  const sentryTrace = headerValue(headers, 'sentry-trace');
  const baggage = headerValue(headers, 'baggage');
  const incoming = sentryTrace ? propagationContextFromHeaders(sentryTrace, baggage) : undefined;
  const client = getClient();
  const continued =
    incoming?.parentSpanId !== undefined && (client === undefined || shouldContinueTrace(client, incoming.dsc?.org_id))
      ? incoming
      : undefined;
  const callerDecision = continued?.sampled ?? decisionInBaggage(continued?.dsc);
  // Read from the header again: `propagationContextFromHeaders` wrote the number it drew into the
  // context it returned. One the SDK cannot parse, it replaces with a draw of its own.
  if (
    continued !== undefined &&
    callerDecision === undefined &&
    parseSampleRate(baggageHeaderToDynamicSamplingContext(baggage)?.sample_rand) === undefined
  ) {
    return true;
  }
  const propagation = continued ?? scope.getPropagationContext();
  const isSampled = propagation.sampleRand < (callerDecision === undefined ? sampleRate : Number(callerDecision));
  // The scope holds the decision, and the trace it was made for: OpenTelemetry's root span and the
  // page's trace meta tags read it there (lib/observability/span-propagation.ts).
  scope.setPropagationContext({ ...propagation, sampled: isSampled });
  return isSampled;
}

/** Runs a request's work traced when its trace is sampled, else as an untraced one. */
export function traceIfSampled<T>(headers: IncomingHttpHeaders, sampleRate: number, work: () => T): T {
  return isSampledRequest(headers, sampleRate) ? runTraced(work) : work();
}
