import { isBrowserReportingEnabled } from '@/lib/observability/browser-settings';

type BrowserSdk = typeof import('@sentry/nextjs');

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
