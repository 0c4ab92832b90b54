import {
  type BrowserOptions,
  makeBrowserOfflineTransport,
  makeFetchTransport,
  spotlightBrowserIntegration,
} from '@sentry/nextjs';
import { digestOf } from '@/lib/observability/digest';
import { isBrowserExtensionError } from '@/lib/observability/event-filters';
import { droppingNotFoundSpans } from '@/lib/observability/not-found-spans';
import { isReportingEnabled, type ReportingSettings, sharedSentryOptions } from '@/lib/observability/sentry-options';
import { withFilteredBreadcrumbUrls, withFilteredUrls } from '@/lib/observability/url-privacy';
import { TUNNEL_PATH } from '@/lib/tunnel/tunnel-path';

/**
 * Options for the browser init, or undefined when there is nowhere to report to. `notFoundPaths`:
 * the paths the not-found screen was shown for, whose traces are dropped.
 */
export function browserSentryOptions(
  settings: ReportingSettings,
  notFoundPaths: ReadonlySet<string>,
): BrowserOptions | undefined {
  if (!isReportingEnabled(settings)) {
    return undefined;
  }
  const { spotlightUrl } = settings;
  const shared = sharedSentryOptions(settings, notFoundPaths);
  return {
    ...shared,
    beforeSendTransaction: (event) => {
      const kept = shared.beforeSendTransaction(event);
      return kept === null ? null : withFilteredUrls(kept);
    },
    beforeBreadcrumb: withFilteredBreadcrumbUrls,
    tunnel: settings.dsn === undefined ? undefined : TUNNEL_PATH,
    // Envelopes that cannot be sent (offline, network error) wait in IndexedDB and go out when the
    // browser is back online, or on the next page load.
    transport: (options) =>
      droppingNotFoundSpans(
        makeBrowserOfflineTransport(makeFetchTransport)({ ...options, flushAtStartup: true }),
        notFoundPaths,
      ),
    integrations: spotlightUrl === undefined ? [] : [spotlightBrowserIntegration({ sidecarUrl: spotlightUrl })],
    beforeSend: (event, hint) =>
      // The largest source of noise after "Script error.": errors of the user's browser extensions.
      // And a server error the browser meets again (React's recovery of a failed server render in a
      // Suspense boundary, a server action's rejection awaited outside a transition): it carries
      // the digest, and the server reported it already, with it.
      isBrowserExtensionError(event, hint.originalException) || digestOf(hint.originalException) !== undefined
        ? null
        : withFilteredUrls(event),
  };
}
