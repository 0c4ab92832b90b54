import 'server-only';
import type { NodeOptions } from '@sentry/nextjs';
import { env, isProduction, serverDsn } from '@/lib/env';
import { tagDigest } from '@/lib/observability/digest';
import { isReportingEnabled, type ReportingSettings, sharedSentryOptions } from '@/lib/observability/sentry-options';
import { withFilteredBreadcrumbUrls, withFilteredUrls } from '@/lib/observability/url-privacy';
import { publicEnv } from '@/lib/public-env';

export const serverReportingSettings: ReportingSettings = {
  dsn: serverDsn,
  environment: env.SENTRY_ENVIRONMENT ?? publicEnv.environment ?? env.NODE_ENV,
  release: publicEnv.release,
  tracesSampleRate: env.NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE,
  spotlightUrl: isProduction ? undefined : env.SENTRY_SPOTLIGHT,
};

/** Options for the Node and edge inits, or undefined when there is nowhere to report to. */
export function serverSentryOptions(): NodeOptions | undefined {
  if (!isReportingEnabled(serverReportingSettings)) {
    return undefined;
  }
  return {
    ...sharedSentryOptions(serverReportingSettings),
    spotlight: serverReportingSettings.spotlightUrl ?? false,
    beforeSend: (event, hint) => withFilteredUrls(tagDigest(event, hint)),
    beforeBreadcrumb: withFilteredBreadcrumbUrls,
  };
}
