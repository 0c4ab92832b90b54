import * as Sentry from '@sentry/nextjs';
import { browserSentryOptions } from '@/lib/observability/browser-options';
import { browserReportingSettings } from '@/lib/observability/browser-sdk';

const options = browserSentryOptions(browserReportingSettings);
if (options) {
  Sentry.init(options);
}
