import 'server-only';
import type { Integration } from '@sentry/core';
import { httpIntegration } from '@sentry/nextjs';
import { errorOnlyIntegrations, HTTP_INTEGRATION_NAME } from '@/lib/framework-internals.mjs';
import { isTunnelUpstreamUrl } from '@/lib/tunnel/lifecycle';

/**
 * The server's integrations. With tracing, all of the SDK's defaults, with one change: the `Http`
 * integration leaves the tunnel's posts to ingest alone. They are Sentry's traffic, not the app's,
 * and instrumenting them slowed the tunnel (docs/reliability.md).
 * Without tracing, the error-only set and no `Http` integration: its per-request work (a copy of
 * the request's headers, trace continuation, a response listener) cost a static page much of its
 * throughput (docs/performance.md). Each request still gets its own isolation scope, from server.mjs.
 */
export function serverIntegrations(defaults: Integration[], isTracing: boolean): Integration[] {
  if (!isTracing) {
    return errorOnlyIntegrations(defaults);
  }
  return [
    ...defaults.filter((integration) => integration.name !== HTTP_INTEGRATION_NAME),
    httpIntegration({ disableIncomingRequestSpans: true, ignoreOutgoingRequests: isTunnelUpstreamUrl }),
  ];
}
