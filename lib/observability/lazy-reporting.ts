import { loadBrowserSdk } from '@/lib/observability/browser-sdk';
import { browserReportingSettings, isBrowserReportingEnabled } from '@/lib/observability/browser-settings';

type BrowserSdk = Awaited<ReturnType<typeof loadBrowserSdk>>;
type UncaughtEvent = ErrorEvent | PromiseRejectionEvent;

// The first seconds after load belong to the user: no SDK to parse unless something failed.
const QUIET_START_MS = 10_000;

/**
 * Reports the way the SDK's own global handlers would, for an error that happened before the SDK
 * was there to see it.
 */
function replay(sdk: BrowserSdk, event: UncaughtEvent): void {
  if (event.type === 'unhandledrejection') {
    sdk.captureException((event as PromiseRejectionEvent).reason, {
      mechanism: { type: 'auto.browser.global_handlers.onunhandledrejection', handled: false },
    });
    return;
  }
  const { error, message } = event as ErrorEvent;
  sdk.captureException(error ?? message, {
    mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false },
  });
}

function whenIdle(callback: () => void): void {
  if ('requestIdleCallback' in window) {
    window.requestIdleCallback(callback, { timeout: 5_000 });
  } else {
    setTimeout(callback, 1_000);
  }
}

/**
 * Catches uncaught errors from the first instant, keeps them until the SDK is loaded and hands them
 * over then. The SDK loads at the first error, or later when the browser is idle, so the page
 * never waits for it.
 */
export function startLazyReporting() {
  let sdk: BrowserSdk | undefined;
  if (!isBrowserReportingEnabled) {
    return { onRouterTransitionStart() {} };
  }

  const early: UncaughtEvent[] = [];
  const keep = (event: Event) => {
    early.push(event as UncaughtEvent);
    load();
  };
  window.addEventListener('error', keep);
  window.addEventListener('unhandledrejection', keep);

  let isLoading = false;
  function load() {
    if (isLoading) return;
    isLoading = true;
    loadBrowserSdk().then(
      (loaded) => {
        // The SDK's own handlers are in place now; no error event can come in between, since this
        // runs in the same task that finished initialising it.
        window.removeEventListener('error', keep);
        window.removeEventListener('unhandledrejection', keep);
        sdk = loaded;
        for (const event of early.splice(0)) replay(loaded, event);
      },
      () => {
        // Offline: the errors stay kept, and the SDK is fetched again once the browser is back.
        isLoading = false;
        window.addEventListener('online', load, { once: true });
      },
    );
  }

  // With tracing the SDK must measure this page load, so it comes as soon as the page is idle.
  // Without, like Sentry's own Loader Script, it waits for an error; or, so that envelopes an earlier
  // page left in the offline queue go out, until the user has had the page to themselves a while.
  const delayMs = browserReportingSettings.tracesSampleRate > 0 ? 0 : QUIET_START_MS;
  const loadWhenIdle = () => setTimeout(() => whenIdle(load), delayMs);
  if (document.readyState === 'complete') {
    loadWhenIdle();
  } else {
    window.addEventListener('load', loadWhenIdle, { once: true });
  }

  return {
    /** Next's hook for client-side navigations; traced once the SDK is there. */
    onRouterTransitionStart(href: string, navigationType: string) {
      sdk?.captureRouterTransitionStart(href, navigationType);
    },
  };
}
