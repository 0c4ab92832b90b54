import * as Sentry from '@sentry/nextjs';
import { browserSentryOptions } from '@/lib/observability/browser-options';
import { publicEnv } from '@/lib/public-env';

const options = browserSentryOptions({
  dsn: publicEnv.sentryDsn,
  environment: publicEnv.environment,
  release: publicEnv.release,
  tracesSampleRate: publicEnv.tracesSampleRate,
  spotlightUrl: publicEnv.isDevelopment ? publicEnv.spotlightUrl : undefined,
});
if (options) {
  Sentry.init(options);
}
