import type { Event } from '@sentry/core';

// Noise that carries nothing actionable. The SDK's defaults cover "Script error." and the current
// ResizeObserver text; the older Chrome text and the dot-less Script error are added here so the
// list is complete on its own.
export const ignoredErrors: RegExp[] = [
  /^Script error\.?$/,
  /^Javascript error: Script error\.? on line 0$/,
  /^ResizeObserver loop completed with undelivered notifications\.?$/,
  /^ResizeObserver loop limit exceeded\.?$/,
];

/** Set on a trace's root span by the not-found screen, so the trace can be dropped. */
export const NOT_FOUND_ATTRIBUTE = 'app.not_found';

const notFoundTransactionName = /^(?:[A-Z]+ )?\/(?:404|_not-found)$/;

// Next's own start-up work (loading instrumentation and route modules) opens root spans of its
// own; they are not requests and would bury the real traces.
const nextInternalSpanType = /^(?:Instrumentation|LoadComponents)\./;

/** A trace that is not a request: module loading and instrumentation set-up inside Next. */
export function isNextInternalTrace(event: Event): boolean {
  const spanType = event.contexts?.trace?.data?.['next.span_type'];
  return typeof spanType === 'string' && nextInternalSpanType.test(spanType);
}

/** A trace of a not-found page: by Next's route name, a 404 answer, or the not-found screen's mark. */
export function isNotFoundTrace(event: Event): boolean {
  if (event.transaction !== undefined && notFoundTransactionName.test(event.transaction)) {
    return true;
  }
  const data = event.contexts?.trace?.data;
  return data?.[NOT_FOUND_ATTRIBUTE] === true || data?.['http.response.status_code'] === 404;
}
