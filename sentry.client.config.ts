import * as Sentry from '@sentry/nextjs';
import { browserSentryOptions } from '@/lib/observability/browser-options';
import { browserReportingSettings, notFoundPaths } from '@/lib/observability/browser-settings';

const options = browserSentryOptions(browserReportingSettings, notFoundPaths);
if (options) {
  Sentry.init(options);
}
