import { existsSync } from 'node:fs';
import { defineConfig, devices } from '@playwright/test';
import { APP_URL, appRunEnv, BARE_APP_URL, SINK_PORT, SINK_URL } from './e2e/support/servers';

// Where Playwright cannot download its own browser (CI here), the system Chromium is used.
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const isCI = process.env.CI === 'true';

const quietEnv = { NEXT_TELEMETRY_DISABLED: '1' };

export default defineConfig({
  testDir: './e2e',
  // Several instances behind nginx: playwright.deploy.config.ts; npm run dev: playwright.dev.config.ts.
  testIgnore: ['deploy/**', 'dev/**'],
  // One shared envelope sink: tests that count what arrived must not overlap.
  workers: 1,
  fullyParallel: false,
  forbidOnly: isCI,
  retries: 0,
  timeout: 30_000,
  reporter: isCI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL: APP_URL,
    trace: 'retain-on-failure',
    ...devices['Desktop Chrome'],
    launchOptions: {
      executablePath: existsSync(chromiumPath) ? chromiumPath : undefined,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: [
    {
      command: `node scripts/envelope-sink.mjs ${SINK_PORT}`,
      url: `${SINK_URL}/health`,
      reuseExistingServer: !isCI,
      timeout: 10_000,
    },
    {
      command: 'node scripts/build.mjs && node scripts/start.mjs',
      url: `${APP_URL}/about`,
      reuseExistingServer: !isCI,
      timeout: 240_000,
      // Its spool inside the standalone build, which every `npm run build` starts afresh: nothing an
      // earlier run kept there arrives at the sink in the middle of this one.
      env: { ...appRunEnv('main'), SENTRY_TUNNEL_SPOOL_DIR: 'e2e-spool', PORT: '3100' },
    },
    {
      command: 'node scripts/build.mjs && node scripts/start.mjs',
      url: `${BARE_APP_URL}/about`,
      reuseExistingServer: !isCI,
      timeout: 240_000,
      // Playwright merges these into the caller's environment: blank out anything a developer's
      // shell might set, so this build really has no DSN.
      env: {
        ...quietEnv,
        PORT: '3101',
        NEXT_DIST_DIR: '.next-bare',
        NEXT_PUBLIC_SENTRY_DSN: '',
        SENTRY_DSN: '',
        NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: '',
        ENABLE_SENTRY_EXAMPLES: '',
        DEPLOYMENT_ID: '',
      },
    },
  ],
});
