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
 * The paths this tab showed the not-found screen for; sentry.client.config.ts drops their
 * page-load and navigation traces. Kept apart from the SDK, which may load only after the user has
 * moved on, when the not-found page's trace is no longer the active one.
 */
export const notFoundPaths = new Set<string>();
