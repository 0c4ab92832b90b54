// @sentry/nextjs as ES modules, tree-shaken (next.config.ts).
import * as Sentry from 'sentry-nextjs-server-esm';
import { env, isProduction, isTracingEnabled } from '@/lib/env';
import {
  errorOnlyIntegrations,
  requestIsolationIntegration,
  withoutSdkCultureCheck,
} from '@/lib/framework-internals.mjs';
import { serverReportingSettings, serverSentryOptions } from '@/lib/observability/server-options';
import { TRANSPORT_BUFFER_SIZE } from '@/lib/observability/transaction-batches';
import { ingestTransport, sendsThroughProxy } from '@/lib/tunnel/ingest-transport';
import { keepingErrorsForLater } from '@/lib/tunnel/server-envelopes';

const options = serverSentryOptions();
if (options) {
  // Without the SDK's culture check, which would initialize ICU at start-up (lib/framework-internals.mjs).
  withoutSdkCultureCheck(process.versions, () =>
    Sentry.init({
      ...options,
      // Sentry reports the server's errors; OpenTelemetry's SDK records its spans, which go to Sentry
      // as transactions (lib/observability/server-tracing.ts). The SDK's own span layer stays off: it
      // cost a traced request several times an untraced one (docs/performance.md).
      tracesSampleRate: undefined,
      enableOpenTelemetrySetup: false,
      enableRuntimeChannelInjection: false,
      // Room for a batch of transactions on top of the SDK's default (lib/observability/transaction-batches.ts).
      transportOptions: { bufferSize: TRANSPORT_BUFFER_SIZE },
      // Errors that ingest cannot take now wait in the tunnel's spool (lib/tunnel/server-envelopes.ts).
      // Sent as the tunnel sends (lib/tunnel/ingest-transport.ts), or by the SDK through a proxy.
      transport: keepingErrorsForLater((transportOptions) =>
        sendsThroughProxy(transportOptions.url, env)
          ? Sentry.makeNodeTransport(transportOptions)
          : ingestTransport(env.SENTRY_TUNNEL_TIMEOUT_MS)(transportOptions),
      ),
      integrations: (defaults) => [
        // In production never the `Http` integration: its work on every incoming request cost a
        // static page much of its throughput (docs/performance.md), and each request gets its own
        // isolation scope from server.mjs instead. Under `next dev`, which has no server.mjs, it is
        // what keeps one request's scope data off another's events.
        ...errorOnlyIntegrations(defaults),
        ...(isProduction ? [] : [requestIsolationIntegration(defaults)]),
        // Errors land on the trace of the span that is active when they happen.
        ...(isTracingEnabled ? [Sentry.openTelemetryIntegration()] : []),
      ],
    }),
  );
  const client = Sentry.getClient();
  if (isTracingEnabled && client) {
    // Loaded only with tracing: a server without it loads no OpenTelemetry SDK.
    const { startServerTracing } = await import('@/lib/observability/server-tracing');
    startServerTracing(client, serverReportingSettings.tracesSampleRate);
  }
}
