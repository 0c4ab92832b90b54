import * as Sentry from '@sentry/nextjs';
import { browserSentryOptions } from '@/lib/observability/browser-options';
import { browserReportingSettings, shownNotFoundPaths } from '@/lib/observability/browser-sdk';

const options = browserSentryOptions(browserReportingSettings, shownNotFoundPaths);
if (options) {
  Sentry.init(options);
}
