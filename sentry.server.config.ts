import * as Sentry from '@sentry/nextjs';
import { serverIntegrations } from '@/lib/observability/server-integrations';
import { serverSentryOptions } from '@/lib/observability/server-options';

const options = serverSentryOptions();
if (options) {
  const isTracing = options.tracesSampleRate !== undefined;
  Sentry.init({
    ...options,
    // Without tracing nothing needs Next's OpenTelemetry spans, nor the module hooks that make
    // libraries emit tracing channels: they would cost throughput for nothing (docs/performance.md).
    enableOpenTelemetrySetup: isTracing,
    enableRuntimeChannelInjection: isTracing,
    integrations: (defaults) => serverIntegrations(defaults, isTracing),
  });
}
