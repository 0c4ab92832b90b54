import 'server-only';
import { httpRequestToRequestData, stripUrlQueryAndFragment, withScope } from '@sentry/core';
import type { Instrumentation } from 'next';
import { env } from '@/lib/env';
import { digestOf } from '@/lib/observability/digest';

type RequestErrorArgs = Parameters<Instrumentation.onRequestError>;

/**
 * What Next's `onRequestError` hook (instrumentation.ts) does with each server error: reports it
 * once, through the SDK's own capture, which the hook passes in from its runtime's build of the SDK.
 * Next gives render and action errors a digest; a route handler's error has none, so it gets one
 * here, and every server event can be found by the digest tag that `beforeSend` adds. The SDK's
 * capture gives the event the request's method and headers; the URL and query string, which the
 * SDK's `Http` integration would add for every request (the server runs without it), are added
 * here, for the failing request alone.
 */
export function reportRequestError(
  captureRequestError: (...args: RequestErrorArgs) => void,
  ...[error, request, context]: RequestErrorArgs
): void {
  if (typeof error === 'object' && error !== null && digestOf(error) === undefined) {
    // Web Crypto, not node:crypto: this hook is bundled for the edge runtime too. Decimal, like
    // Next's own digests.
    const [random = 0] = crypto.getRandomValues(new Uint32Array(1));
    // A frozen error, or one whose `digest` is read-only, is reported without one rather than lost.
    Reflect.set(error, 'digest', String(random));
  }
  const headers = trustedHeadersOf(request);
  withScope((scope) => {
    scope.setSDKProcessingMetadata({ normalizedRequest: requestDataOf(request) });
    // The SDK copies `path` into the event's `nextjs` context as it is; the query string, with
    // its secrets filtered, is in the request data above. It also puts the headers it is given in
    // that data, in place of the ones above: the same ones, then.
    captureRequestError(error, { ...request, headers, path: stripUrlQueryAndFragment(request.path) }, context);
  });
}

/**
 * The request's headers as its events may hold them: its X-Forwarded-Host and -Proto only behind a
 * proxy that writes them (TRUST_PROXY), or any client could name the host its error events show.
 */
function trustedHeadersOf(request: RequestErrorArgs[1], trustProxy = env.TRUST_PROXY === true) {
  if (trustProxy) return request.headers;
  const { 'x-forwarded-host': _host, 'x-forwarded-proto': _proto, ...ownHeaders } = request.headers;
  return ownHeaders;
}

/**
 * A failing request as the SDK's events hold it: method, URL, query string, headers. The host and
 * scheme are the ones the client asked for, or a trusted proxy's (trustedHeadersOf).
 */
export function requestDataOf(request: RequestErrorArgs[1], trustProxy = env.TRUST_PROXY === true) {
  return httpRequestToRequestData({
    method: request.method,
    url: request.path,
    headers: trustedHeadersOf(request, trustProxy),
  });
}
