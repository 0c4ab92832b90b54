import 'server-only';
import type { Integration } from '@sentry/core';
import { httpIntegration } from '@sentry/nextjs';
import { isTunnelUpstreamUrl } from '@/lib/observability/tunnel-instance';

/**
 * What a server error event needs when nothing is traced: filters (`ignoreErrors`), causes,
 * request data and source context on the event, and the process-wide handlers for errors outside
 * any request. Server errors inside requests come through `onRequestError`, which needs no
 * per-request instrumentation. Left out: console and fetch breadcrumbs, local variables (an
 * inspector session that pauses on every throw), module lists, child-process and worker watchers,
 * and the web frameworks' hooks (docs/performance.md has the steps measured).
 */
const ERROR_ONLY_INTEGRATIONS = new Set([
  'EventFilters',
  'FunctionToString',
  'LinkedErrors',
  'RequestData',
  'OnUncaughtException',
  'OnUnhandledRejection',
  'ContextLines',
  'Context',
  'DistDirRewriteFrames',
  'Spotlight',
]);

/**
 * The server's integrations. With tracing, all of the SDK's defaults, with one change: the `Http`
 * integration leaves the tunnel's posts to ingest alone. They are Sentry's traffic, not the app's,
 * and instrumenting them cost the tunnel a third of its throughput (docs/reliability.md).
 * Without tracing, the error-only set and no `Http` integration: its per-request work (a copy of
 * the request's headers, trace continuation, a response listener) cost a quarter of a static
 * page's throughput. Each request still gets its own isolation scope, from server.mjs.
 */
export function serverIntegrations(defaults: Integration[], isTracing: boolean): Integration[] {
  if (!isTracing) {
    return defaults.filter((integration) => ERROR_ONLY_INTEGRATIONS.has(integration.name));
  }
  return [
    ...defaults.filter((integration) => integration.name !== 'Http'),
    httpIntegration({ disableIncomingRequestSpans: true, ignoreOutgoingRequests: isTunnelUpstreamUrl }),
  ];
}
