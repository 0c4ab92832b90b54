import { isBrowserReportingEnabled } from '@/lib/observability/browser-settings';

type BrowserSdk = typeof import('@sentry/nextjs');

let loading: Promise<BrowserSdk> | undefined;

/**
 * The Sentry browser SDK, fetched and initialised on first call. It is not in the first-load
 * JavaScript (docs/performance.md): lib/observability/lazy-reporting.ts calls this once the page is
 * idle, or at the first error.
 */
export function loadBrowserSdk(): Promise<BrowserSdk> {
  // Next compiles `typeof window` to a constant: a server render never calls this, and its
  // bundles then hold no copy of the SDK (a second one cost build time, docs/performance.md).
  if (typeof window === 'undefined') {
    return Promise.reject(new Error('The browser SDK loads only in a browser'));
  }
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
  loadBrowserSdk().then(
    (sdk) =>
      sdk.captureException(error, { mechanism: { type: 'auto.function.nextjs.error_boundary', handled: false } }),
    // Offline before the SDK was ever fetched: the error waits for the network, rather than be
    // lost with only the chunk's failure reported in its place.
    () => window.addEventListener('online', () => reportBoundaryError(error), { once: true }),
  );
}
