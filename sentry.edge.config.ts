import * as Sentry from '@sentry/nextjs';
import { serverSentryOptions } from '@/lib/observability/server-options';

const options = serverSentryOptions();
if (options) {
  Sentry.init(options);
}
