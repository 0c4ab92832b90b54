import { spawn } from 'node:child_process';
import { type AppProcess, removeSpool, startApp } from '../support/app-process';
import { test as base } from '../support/fixtures';
import { SENTRY_DSN } from '../support/servers';
import { type Nginx, startNginx } from './nginx';

export const NGINX_PORT = 3200;
export const PORTS = { a1: 3201, a2: 3202, b: 3203 } as const;
export const DEPLOYMENT_A = 'deploy-a';
export const DEPLOYMENT_B = 'deploy-b';

// One key for every build, as the README asks of a deployment: a test value, not a secret.
const ACTIONS_KEY = 'sCAM2JQnX7AN4Zjj8BRysJFCaCplD8Jh+RvwQhVFI08=';

// Two instances of deployment A, each built on its own from this commit with the same settings,
// and one of deployment B: the same commit, a new deployment id, as the next release would be.
const BUILDS = {
  a1: { distDir: '.next-deploy-a1', deploymentId: DEPLOYMENT_A },
  a2: { distDir: '.next-deploy-a2', deploymentId: DEPLOYMENT_A },
  b: { distDir: '.next-deploy-b', deploymentId: DEPLOYMENT_B },
} as const;
type Instance = keyof typeof BUILDS;

function build({ distDir, deploymentId }: (typeof BUILDS)[Instance]): Promise<void> {
  const child = spawn('node', ['scripts/build.mjs'], {
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      NEXT_DIST_DIR: distDir,
      DEPLOYMENT_ID: deploymentId,
      NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: ACTIONS_KEY,
      NEXT_PUBLIC_SENTRY_DSN: SENTRY_DSN,
      NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: '0',
      SENTRY_RELEASE: 'deploy-release',
      SENTRY_ENVIRONMENT: 'deploy',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`building ${distDir} failed (${code})`)))),
  );
}

export type Cluster = {
  nginx: Nginx;
  instances: Record<Instance, AppProcess>;
  /** Starts an instance again after a test stopped it. */
  restart(instance: Instance): Promise<void>;
};

function start(instance: Instance, options?: { keepSpool: boolean }): Promise<AppProcess> {
  return startApp(
    PORTS[instance],
    `deploy-${instance}`,
    {
      NEXT_DIST_DIR: BUILDS[instance].distDir,
      // What a load balancer polling /api/ready needs to stop routing here before the listener closes.
      SHUTDOWN_DRAIN_DELAY_MS: '500',
      // The per-client caps key on the address nginx puts in X-Forwarded-For.
      TRUST_PROXY: 'true',
    },
    options,
  );
}

export const test = base.extend<{ routedToDeploymentA: undefined }, { cluster: Cluster }>({
  cluster: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      // One after the other: two cores, and each build uses both. DEPLOY_TEST_REUSE_BUILDS=1
      // skips them, to rerun the tests against the builds of the previous run.
      if (process.env.DEPLOY_TEST_REUSE_BUILDS !== '1') {
        for (const instance of Object.keys(BUILDS) as Instance[]) await build(BUILDS[instance]);
      }
      const instances = {
        a1: await start('a1'),
        a2: await start('a2'),
        b: await start('b'),
      };
      const nginx = await startNginx(NGINX_PORT, [PORTS.a1, PORTS.a2]);
      try {
        await use({
          nginx,
          instances,
          async restart(instance) {
            await instances[instance].stop();
            instances[instance] = await start(instance, { keepSpool: true });
          },
        });
      } finally {
        await nginx.stop();
        await Promise.all(Object.values(instances).map((instance) => instance.stop()));
        await Promise.all((Object.keys(BUILDS) as Instance[]).map((instance) => removeSpool(`deploy-${instance}`)));
      }
    },
    { scope: 'worker', auto: true, timeout: 420_000 },
  ],
  // Each test starts with deployment A's two instances behind the balancer, whatever the test
  // before it switched to.
  routedToDeploymentA: [
    async ({ cluster }, use) => {
      await cluster.nginx.route([PORTS.a1, PORTS.a2]);
      await use(undefined);
    },
    { auto: true },
  ],
});

export { expect } from '@playwright/test';
