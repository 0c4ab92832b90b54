import type { Page, Response } from '@playwright/test';
import { errorEnvelope } from '../support/envelopes';
import { SENTRY_DSN } from '../support/servers';
import { DEPLOYMENT_A, DEPLOYMENT_B, expect, PORTS, test } from './cluster';

const upstream = (port: number) => `127.0.0.1:${port}`;

function nextActionResponse(page: Page): Promise<Response> {
  return page.waitForResponse((response) => response.request().headers()['next-action'] !== undefined);
}

async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => Object.assign(window, { heldSinceLoad: true }));
}

/** False once the browser has loaded a new document: a full reload, not a client navigation. */
function isSameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => 'heldSinceLoad' in window);
}

test('a server action rendered by one instance and run by the other succeeds', async ({ page, cluster }) => {
  // The balancer sends the page to one instance and, from then on, everything to the other.
  await cluster.nginx.route([PORTS.a1]);
  const document = await page.goto('/status');
  expect(document?.headers()['x-upstream']).toBe(upstream(PORTS.a1));
  const renderedAt = await page.getByTestId('rendered-at').textContent();
  await markPage(page);

  await cluster.nginx.route([PORTS.a2]);
  const action = nextActionResponse(page);
  await page.getByRole('button', { name: 'Check again' }).click();
  const response = await action;
  expect((await response.allHeaders())['x-upstream']).toBe(upstream(PORTS.a2));
  expect(response.status()).toBe(200);
  // The page's time came back from the action: the other instance decrypted what this one bound.
  await expect(page.getByTestId('check-result')).toContainText(
    `(deployment ${DEPLOYMENT_A}), after the check at ${renderedAt}.`,
  );
  expect(await isSameDocument(page)).toBe(true);
});

test('a browser holding deployment A’s page reloads into B when it navigates after B is live', async ({
  page,
  cluster,
}) => {
  await page.goto('/about');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('About');
  await markPage(page);
  await cluster.nginx.route([PORTS.b]);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Status' }).click();
  await expect(page.getByTestId('deployment-id')).toHaveText(DEPLOYMENT_B);
  expect(await isSameDocument(page)).toBe(false);
  await expect(page.getByTestId('error-digest')).toHaveCount(0);
});

test('a browser holding deployment A’s page reloads into B when it calls an action after B is live', async ({
  page,
  cluster,
}) => {
  await page.goto('/status');
  await expect(page.getByTestId('deployment-id')).toHaveText(DEPLOYMENT_A);
  await markPage(page);
  await cluster.nginx.route([PORTS.b]);
  const action = nextActionResponse(page);
  await page.getByRole('button', { name: 'Check again' }).click();
  const response = await action;
  expect(response.status()).toBe(409);
  expect((await response.allHeaders())['x-action-redirect']).toBe('/status;replace');
  await expect(page.getByTestId('deployment-id')).toHaveText(DEPLOYMENT_B);
  expect(await isSameDocument(page)).toBe(false);
  await expect(page.getByTestId('error-digest')).toHaveCount(0);
});

test('SIGTERM to one instance under load through nginx fails no idempotent request and loses no error report', async ({
  cluster,
  sink,
}) => {
  const LOAD_MS = 5_000;
  const SIGTERM_AFTER_MS = 1_500;
  const paths = ['/', '/status', '/about', '/api/health'];
  const started = Date.now();
  const failures: string[] = [];
  const answers: { by: string; sentAfterSigterm: boolean }[] = [];
  let sigtermAt = Number.POSITIVE_INFINITY;

  async function loadWorker(offset: number): Promise<void> {
    for (let sent = offset; Date.now() - started < LOAD_MS; sent += 1) {
      const path = paths[sent % paths.length] ?? '/';
      const sentAt = Date.now();
      try {
        const response = await fetch(`${cluster.nginx.url}${path}`);
        await response.arrayBuffer();
        if (response.status !== 200) failures.push(`GET ${path}: ${response.status}`);
        answers.push({ by: response.headers.get('x-upstream') ?? '', sentAfterSigterm: sentAt > sigtermAt });
      } catch (error) {
        failures.push(`GET ${path}: ${String(error)}`);
      }
    }
  }

  // Reports as the browser SDK posts them to the tunnel, every 100 ms through the shutdown.
  const reports: string[] = [];
  async function reporter(): Promise<void> {
    while (Date.now() - started < LOAD_MS) {
      const message = `report during shutdown ${reports.length}`;
      reports.push(message);
      const response = await fetch(`${cluster.nginx.url}/monitoring`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: errorEnvelope(SENTRY_DSN, message),
      }).catch((error: unknown) => ({ status: String(error) }));
      if (response.status !== 200) failures.push(`report ${message}: ${response.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const stopped = (async () => {
    await new Promise((resolve) => setTimeout(resolve, SIGTERM_AFTER_MS));
    sigtermAt = Date.now();
    return cluster.instances.a1.stop('SIGTERM');
  })();
  await Promise.all([...[0, 1, 2, 3, 4, 5].map(loadWorker), reporter()]);

  expect(await stopped, cluster.instances.a1.output()).toBe(0);
  expect(failures).toEqual([]);
  // The stopping instance served requests that arrived after SIGTERM (its drain), and the load
  // went on through the other one.
  expect(
    answers.filter(({ by, sentAfterSigterm }) => sentAfterSigterm && by === upstream(PORTS.a1)).length,
  ).toBeGreaterThan(0);
  expect(answers.filter(({ by }) => by === upstream(PORTS.a2)).length).toBeGreaterThan(50);
  await expect
    .poll(
      async () => {
        const arrived = new Set((await sink.errorEvents()).map((event) => event.message));
        return reports.filter((message) => !arrived.has(message));
      },
      { timeout: 20_000, message: 'reports that never reached Sentry' },
    )
    .toEqual([]);
  await cluster.restart('a1');
});
