import 'server-only';
import type { Integration } from '@sentry/core';
import { errorOnlyIntegrations, HTTP_INTEGRATION_NAME } from '@/lib/framework-internals.mjs';

/**
 * The server's integrations. Never the `Http` integration: its work on every incoming request (a
 * copy of the request's headers, a session, trace continuation, a response listener) cost a static
 * page much of its throughput, traced or not (docs/performance.md). Each request gets its own
 * isolation scope from server.mjs instead, and with tracing Next's own root span is the request's.
 * With tracing, every other default stays: `fetch` (NodeFetch) and the database, queue and cache
 * clients record their spans. What goes with `Http`: spans, breadcrumbs and trace headers of
 * outgoing `node:http` requests (clients built on it rather than on `fetch`), request sessions,
 * and the request's URL on events captured by hand. Without tracing, the error-only set.
 */
export function serverIntegrations(defaults: Integration[], isTracing: boolean): Integration[] {
  if (!isTracing) {
    return errorOnlyIntegrations(defaults);
  }
  return defaults.filter((integration) => integration.name !== HTTP_INTEGRATION_NAME);
}
