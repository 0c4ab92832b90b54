import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Where the browser tests find their servers; playwright.config.ts starts them.
export const SINK_PORT = 3199;
export const SINK_URL = `http://127.0.0.1:${SINK_PORT}`;
export const SENTRY_DSN = `http://e2e0public0key@127.0.0.1:${SINK_PORT}/1`;

/** Production build with a DSN, every trace sampled and the example routes on. */
export const APP_URL = 'http://localhost:3100';
export const DEPLOYMENT_ID = 'e2e-deployment';
export const RELEASE = 'e2e-release';

/** Production build with no DSN and the example routes off: what a plain deployment serves. */
export const BARE_APP_URL = 'http://localhost:3101';

/** Build-time settings of the app on APP_URL. */
export const APP_BUILD_ENV = {
  NEXT_TELEMETRY_DISABLED: '1',
  NEXT_DIST_DIR: '.next',
  NEXT_PUBLIC_SENTRY_DSN: SENTRY_DSN,
  NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: '1',
  DEPLOYMENT_ID,
  SENTRY_RELEASE: RELEASE,
  SENTRY_ENVIRONMENT: 'e2e',
};

/**
 * Run-time settings of the app on APP_URL; tests that start another instance of the same build
 * use them too, with their own spool folder. The per-client cap is raised: every test shares
 * one loopback address.
 */
export function appRunEnv(spoolName: string): Record<string, string> {
  return {
    ...APP_BUILD_ENV,
    SENTRY_DSN: '',
    ENABLE_SENTRY_EXAMPLES: 'true',
    SENTRY_TUNNEL_RATE_LIMIT: '100000',
    SENTRY_TUNNEL_SPOOL_DIR: join(tmpdir(), `shell-e2e-${spoolName}`),
  };
}
