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
