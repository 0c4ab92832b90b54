import 'server-only';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isValidSpanId, isValidTraceId, ProxyTracerProvider, trace } from '@opentelemetry/api';
import {
  type Client,
  type DynamicSamplingContext,
  type PropagationContext,
  propagationContextFromHeaders,
  shouldContinueTrace,
} from '@sentry/core';
import { gateNextTracing } from '@/lib/framework-internals.mjs';
import type { CallerSamplingBudget } from '@/lib/observability/caller-sampling-budget';
import { freshTrace, withRequestScopes } from '@/lib/observability/request-scopes';
import { isUntracedTarget } from '@/lib/observability/untraced-requests';
import { isRequestTraced, runTraced } from '@/lib/server/seam.mjs';

/** The first value of a header a client may have sent more than once. */
function firstHeaderValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * With tracing on, Next opens its spans only for requests whose trace is sampled. Decided when Next
 * opens the request's root span, an unsampled request would already have paid for its contexts:
 * so the decision is made once, as the request arrives, before Next runs (decideRequestTrace), and
 * the server's sampler follows it (lib/observability/server-tracing.ts).
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

/** A request's trace as decided when it arrives: whether it is sampled, and the trace it was decided for. */
type RequestTrace = { isSampled: boolean; propagation: PropagationContext };

/**
 * Whether this request's trace is sampled, decided as Sentry's SDKs decide (the trace's random number
 * against the caller's decision, from `sentry-trace` or else its baggage, as a rate of 1 or 0, or
 * else against the rate), from what the request continues or from a fresh trace drawn for it. The
 * random number is the caller's when it sent a valid one, else one drawn for the trace. A trace the
 * SDK would not continue (another organization's), or one whose ids are not valid, is not
 * continued. The propagation context keeps the decision and the trace it was made for: the
 * request's scope starts with it when it is first read (withRequestScopes), the server's root span
 * starts in that trace (lib/observability/server-tracing.ts), and an unsampled request's page tells
 * the browser not to sample it either. With `callerBudget`, a continued trace is sampled only
 * within it (lib/observability/caller-sampling-budget.ts). Reads no scope: a request nothing reads
 * the scope of, such as an unsampled static page, forks none.
 */
export function decideRequestTrace(
  headers: IncomingHttpHeaders,
  sampleRate: number,
  client: Client | undefined,
  callerBudget?: CallerSamplingBudget,
): RequestTrace {
  callerBudget?.countRequest();
  const sentryTrace = firstHeaderValue(headers['sentry-trace']);
  const baggage = firstHeaderValue(headers.baggage);
  // Draws the trace's random number when the caller sent none (or one that is not a number).
  const incoming = sentryTrace ? propagationContextFromHeaders(sentryTrace, baggage) : undefined;
  // Sentry's parser takes ids of all zeros, which OpenTelemetry takes for no parent: each span Next
  // opens would start a trace of its own, and go to Sentry as a transaction of its own.
  const continued =
    incoming?.parentSpanId !== undefined &&
    isValidTraceId(incoming.traceId) &&
    isValidSpanId(incoming.parentSpanId) &&
    (client === undefined || shouldContinueTrace(client, incoming.dsc?.org_id))
      ? incoming
      : undefined;
  const callerDecision = continued?.sampled ?? decisionInBaggage(continued?.dsc);
  const propagation = continued ?? freshTrace();
  const isSampled =
    propagation.sampleRand < (callerDecision === undefined ? sampleRate : Number(callerDecision)) &&
    (continued === undefined || callerBudget === undefined || callerBudget.maySample());
  // A caller's baggage stays as it came, frozen, as the SDK keeps it when its sampler overrides a
  // sampled caller: `sentry-trace`'s flag, which every SDK reads first, says what was decided here.
  return { isSampled, propagation: { ...propagation, sampled: isSampled } };
}

/**
 * Runs a request's work in scopes of its own (withRequestScopes) that start in the trace decided for
 * it, traced when that trace is sampled, else as an untraced one. Only with startRequestScopes()'s
 * strategy in place: without it the SDK reads scopes of its own, and the decided trace reaches none.
 */
export function traceIfSampled<T>(
  headers: IncomingHttpHeaders,
  sampleRate: number,
  client: Client | undefined,
  work: () => T,
  callerBudget?: CallerSamplingBudget,
): T {
  const { isSampled, propagation } = decideRequestTrace(headers, sampleRate, client, callerBudget);
  return withRequestScopes(isSampled ? () => runTraced(work) : work, propagation);
}

/**
 * How server.mjs runs a request it hands over, with tracing on: a probe's is never traced, whatever
 * its caller decided (lib/observability/untraced-requests.ts), any other as traceIfSampled decides,
 * its caller's sampled trace within `callerBudget`.
 */
export function isolateRequest<T>(
  request: Pick<IncomingMessage, 'url' | 'headers'>,
  sampleRate: number,
  client: Client | undefined,
  work: () => T,
  callerBudget: CallerSamplingBudget,
): T {
  if (!isUntracedTarget(request.url ?? '/')) {
    return traceIfSampled(request.headers, sampleRate, client, work, callerBudget);
  }
  // In its caller's trace, as any unsampled request: its events, and any request it makes, say
  // the trace is not sampled, so that nothing downstream samples it either.
  const { propagation } = decideRequestTrace(request.headers, 0, client);
  return withRequestScopes(work, { ...propagation, sampled: false });
}
