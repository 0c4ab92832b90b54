import { isReportingEnabled, type ReportingSettings } from '@/lib/observability/sentry-options';
import { publicEnv } from '@/lib/public-env';

type BrowserSdk = typeof import('@sentry/nextjs');

/** The browser's reporting settings, fixed at build time; sentry.client.config.ts inits from them. */
export const browserReportingSettings: ReportingSettings = {
  dsn: publicEnv.sentryDsn,
  environment: publicEnv.environment,
  release: publicEnv.release,
  tracesSampleRate: publicEnv.tracesSampleRate,
  spotlightUrl: publicEnv.isDevelopment ? publicEnv.spotlightUrl : undefined,
};

/** Whether this build reports browser errors at all: to Sentry, or in development to Spotlight. */
export const isBrowserReportingEnabled = isReportingEnabled(browserReportingSettings);

let loading: Promise<BrowserSdk> | undefined;

/**
 * The Sentry browser SDK, fetched and initialised on first call. It is not in the first-load
 * JavaScript (docs/performance.md): lib/observability/lazy-reporting.ts calls this once the page is
 * idle, or at the first error.
 */
export function loadBrowserSdk(): Promise<BrowserSdk> {
  loading ??= import('@/sentry.client.config')
    .then(() => import('@sentry/nextjs'))
    .catch((error: unknown) => {
      // Offline, or the network dropped the chunk: let the next call try again.
      loading = undefined;
      throw error;
    });
  return loading;
}

/** Reports an error caught by an error boundary, which the SDK's global handlers never see. */
export function reportBoundaryError(error: unknown): void {
  if (!isBrowserReportingEnabled) return;
  void loadBrowserSdk().then((sdk) =>
    sdk.captureException(error, { mechanism: { type: 'auto.function.nextjs.error_boundary', handled: false } }),
  );
}

/**
 * Marks the current page load's or navigation's trace as a not-found page, for the shared filter
 * to drop. Only when tracing is on: there is no trace to mark otherwise.
 */
export function markTraceAsNotFound(attribute: string): void {
  if (!isBrowserReportingEnabled || browserReportingSettings.tracesSampleRate <= 0) return;
  void loadBrowserSdk().then((sdk) => {
    const span = sdk.getActiveSpan();
    if (span) sdk.getRootSpan(span).setAttribute(attribute, true);
  });
}
