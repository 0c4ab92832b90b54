import * as Sentry from '@sentry/nextjs';
import { serverSentryOptions } from '@/lib/observability/server-options';
import { isTunnelUpstreamUrl } from '@/lib/observability/tunnel-instance';

const options = serverSentryOptions();
if (options) {
  Sentry.init({
    ...options,
    integrations: [
      // The SDK's default for Next (Next traces incoming requests itself), except that the tunnel's
      // posts to ingest get no span, breadcrumb or trace headers: they are Sentry's traffic, not
      // the app's, and instrumenting them cost the tunnel a third of its throughput
      // (docs/reliability.md).
      Sentry.httpIntegration({ disableIncomingRequestSpans: true, ignoreOutgoingRequests: isTunnelUpstreamUrl }),
    ],
  });
}
