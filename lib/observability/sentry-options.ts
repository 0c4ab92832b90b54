import type { DataCollection, Event } from '@sentry/core';
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
 * No personal data, in the browser or on the server. SDK 11 reads `dataCollection` (its
 * `sendDefaultPii` is gone), and its defaults collect the client's IP address (and let ingest infer
 * one), cookies and bodies. Headers, the URL and its query string stay, with the values the SDK
 * takes for secrets (tokens, keys, sessions) filtered, also in the URLs it leaves as they are
 * (lib/observability/url-privacy.ts); without the client's address, the headers that carry it
 * (X-Forwarded-For and its kind) go too.
 */
export const dataCollection: DataCollection = {
  userInfo: false,
  cookies: false,
  httpBodies: [],
  stackFrameVariables: false,
  graphQL: { document: false, variables: false },
  genAI: { inputs: false, outputs: false },
  databaseQueryData: false,
  queues: false,
};

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
    dataCollection,
    ignoreErrors: ignoredErrors,
    beforeSendTransaction: <T extends Event>(event: T): T | null =>
      isNotFoundTrace(event, notFoundPaths) || isNextInternalTrace(event) ? null : event,
  };
}
