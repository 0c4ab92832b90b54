import { isReportingEnabled, type ReportingSettings } from '@/lib/observability/sentry-options';
import { publicEnv } from '@/lib/public-env';

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

const shownNotFound = new Set<string>();

/**
 * The paths this tab showed the not-found screen for; sentry.client.config.ts drops their
 * page-load and navigation traces. Kept apart from the SDK, which may load only after the user has
 * moved on, when the not-found page's trace is no longer the active one.
 */
export const notFoundPaths: ReadonlySet<string> = shownNotFound;

/** Notes that the not-found screen was shown for `path`. */
export function markNotFoundPath(path: string): void {
  shownNotFound.add(path);
}
