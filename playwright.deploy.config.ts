import { defineConfig } from '@playwright/test';
import { NGINX_PORT } from './e2e/deploy/cluster';
import { SINK_PORT, SINK_URL } from './e2e/support/servers';
import base from './playwright.config';

// `npm run test:deploy` (and `npm test`): several standalone instances behind Debian's nginx on
// loopback. The test set-up builds and starts them (e2e/deploy/cluster.ts); only the sink is a
// plain web server.
export default defineConfig({
  ...base,
  testDir: './e2e/deploy',
  testIgnore: undefined,
  timeout: 60_000,
  use: { ...base.use, baseURL: `http://127.0.0.1:${NGINX_PORT}` },
  webServer: [
    {
      command: `node scripts/envelope-sink.mjs ${SINK_PORT}`,
      url: `${SINK_URL}/health`,
      reuseExistingServer: process.env.CI !== 'true',
      timeout: 10_000,
    },
  ],
});
