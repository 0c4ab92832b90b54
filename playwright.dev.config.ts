import { defineConfig } from '@playwright/test';
import { DEV_URL } from './e2e/dev/dev-server';
import base from './playwright.config';

// `npm run test:dev` (and first in `npm test`): the developer's loop, `npm run dev` on a tree with
// no build output, watched through Spotlight's own sidecar. The test starts the dev server itself
// (e2e/dev/dev-server.ts), so it can remove the build output first and stop every process after.
export default defineConfig({
  ...base,
  testDir: './e2e/dev',
  testIgnore: undefined,
  timeout: 60_000,
  use: { ...base.use, baseURL: DEV_URL },
  webServer: undefined,
});
