// @sentry/nextjs as ES modules, tree-shaken (next.config.ts).
import * as Sentry from 'sentry-nextjs-server-esm';
import { isTracingEnabled } from '@/lib/env';
import { serverIntegrations } from '@/lib/observability/server-integrations';
import { serverSentryOptions } from '@/lib/observability/server-options';

const options = serverSentryOptions();
if (options) {
  Sentry.init({
    ...options,
    // Without tracing nothing needs Next's OpenTelemetry spans, nor the module hooks that make
    // libraries emit tracing channels: they would cost throughput for nothing (docs/performance.md).
    enableOpenTelemetrySetup: isTracingEnabled,
    enableRuntimeChannelInjection: isTracingEnabled,
    integrations: (defaults) => serverIntegrations(defaults, isTracingEnabled),
  });
}
