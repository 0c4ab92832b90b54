import type { Event } from '@sentry/core';
import { ignoredErrors, isNextInternalTrace, isNotFoundTrace } from '@/lib/observability/event-filters';

export type ReportingSettings = {
  dsn: string | undefined;
  environment: string | undefined;
  release: string | undefined;
  tracesSampleRate: number;
  spotlightUrl: string | undefined;
};

/** True when events have somewhere to go: a Sentry project or, in development, Spotlight. */
export function isReportingEnabled(settings: ReportingSettings): boolean {
  return settings.dsn !== undefined || settings.spotlightUrl !== undefined;
}

/**
 * The options the browser and the server share, so their filtering cannot drift apart.
 * Traces go as transactions (`traceLifecycle: 'static'`): v11's default span streaming skips
 * `beforeSendTransaction`, and with it every way to drop a not-found page's trace.
 * `notFoundPaths`: in the browser, the paths the not-found screen was shown for.
 */
export function sharedSentryOptions(settings: ReportingSettings, notFoundPaths?: ReadonlySet<string>) {
  return {
    dsn: settings.dsn,
    environment: settings.environment,
    release: settings.release,
    tracesSampleRate: settings.tracesSampleRate > 0 ? settings.tracesSampleRate : undefined,
    traceLifecycle: 'static' as const,
    sendDefaultPii: false,
    ignoreErrors: ignoredErrors,
    beforeSendTransaction: <T extends Event>(event: T): T | null =>
      isNotFoundTrace(event, notFoundPaths) || isNextInternalTrace(event) ? null : event,
  };
}
