import { readFileSync } from 'node:fs';
import { test as base, expect } from '@playwright/test';
import type { Event } from '@sentry/core';
import { SpotlightStream } from '../support/spotlight-stream';
import { DEV_URL, type DevServer, SPOTLIGHT_PORT, SPOTLIGHT_URL, startDevServer } from './dev-server';

type WorkerFixtures = { devServer: DevServer; spotlight: SpotlightStream };
type Fixtures = {
  /** Content-Security-Policy violations the page reported, in its console or as events. */
  cspViolations: string[];
};

const test = base.extend<Fixtures, WorkerFixtures>({
  devServer: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const server = await startDevServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 150_000 },
  ],
  spotlight: [
    async ({ devServer }, use) => {
      expect(devServer.output()).toContain('Spotlight');
      const stream = await SpotlightStream.connect(SPOTLIGHT_URL);
      await use(stream);
      stream.close();
    },
    { scope: 'worker' },
  ],
  cspViolations: async ({ page }, use) => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.exposeFunction('reportCspViolation', (text: string) => violations.push(text));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const report = (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation;
        report(`${event.effectiveDirective} blocked ${event.blockedURI}`);
      });
    });
    await use(violations);
  },
});

test.describe.configure({ mode: 'serial' });

const exampleError = (where: string) => `Sentry example error thrown ${where}`;
const exceptionValue = (event: Event) => event.exception?.values?.[0]?.value;

test('npm run dev serves the home, about, status and not-found pages under the development CSP', async ({
  page,
  devServer,
  cspViolations,
}) => {
  expect(devServer.output()).not.toMatch(/exited with code/);
  for (const [path, heading] of [
    ['/', 'Shell'],
    ['/about', 'About'],
    ['/status', 'Status'],
  ] as const) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    expect(response?.headers()['content-security-policy'], path).toContain(`connect-src 'self' ${SPOTLIGHT_URL}`);
  }
  await expect(page.getByTestId('reporting')).toHaveText('on');
  await expect(page.getByTestId('tunnel')).toHaveText('to Spotlight');

  const missing = await page.goto('/no-such-page');
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  expect(cspViolations).toEqual([]);
});

test('each error of the example page reaches Spotlight exactly once', async ({ page, spotlight, cspViolations }) => {
  await page.goto('/sentry-example-page');

  await page.getByRole('button', { name: 'Throw client error' }).click();
  const clientError = await spotlight.waitForErrorEvent(
    (event) => exceptionValue(event) === exampleError('in the browser'),
  );
  expect(clientError.platform).toBe('javascript');
  // The environment's default is NODE_ENV, in the browser as on the server.
  expect(clientError.environment).toBe('development');

  await page.getByRole('button', { name: 'Call failing API route' }).click();
  await expect(page.getByTestId('api-answer')).toHaveText('The API route answered 500.');
  const routeError = await spotlight.waitForErrorEvent(
    (event) => exceptionValue(event) === exampleError('by an API route'),
  );
  expect(routeError.platform).toBe('node');
  expect(routeError.environment).toBe('development');

  await page.getByRole('button', { name: 'Run failing server action' }).click();
  const actionDigest = (await page.getByTestId('error-digest').textContent()) ?? '';
  expect(actionDigest).not.toBe('');
  const actionError = await spotlight.waitForErrorEvent((event) => event.tags?.digest === actionDigest);
  expect(exceptionValue(actionError)).toBe(exampleError('by a server action'));

  const response = await page.goto('/sentry-example-page/server-error');
  expect(response?.status()).toBe(500);
  const renderError = await spotlight.waitForErrorEvent(
    (event) => exceptionValue(event) === exampleError('while rendering a server component'),
  );
  expect(renderError.tags?.digest).toEqual(expect.any(String));

  // A second report (the browser reporting a server error again, a retried send) would follow
  // within moments of the first: give it that long to show up.
  await page.waitForTimeout(2_000);
  const counts = Object.fromEntries(
    ['in the browser', 'by an API route', 'by a server action', 'while rendering a server component'].map((where) => [
      where,
      spotlight.errorEvents().filter((event) => exceptionValue(event) === exampleError(where)).length,
    ]),
  );
  expect(counts).toEqual({
    'in the browser': 1,
    'by an API route': 1,
    'by a server action': 1,
    'while rendering a server component': 1,
  });
  expect(cspViolations).toEqual([]);
});

test("under npm run dev, scope data set in one request never reaches another request's event", async ({
  request,
  spotlight,
}) => {
  // The example route tags its request's scope with the label, waits, then fails.
  const labels = ['dev-first', 'dev-second', 'dev-third'];
  const answers = await Promise.all(labels.map((label) => request.get(`/api/sentry-example-api?label=${label}`)));
  expect(answers.map((answer) => answer.status())).toEqual(labels.map(() => 500));
  // One without a label, after them: it sets no tag, so it must carry none.
  expect((await request.get('/api/sentry-example-api?unlabelled=1')).status()).toBe(500);

  for (const label of labels) {
    const event = await spotlight.waitForErrorEvent(
      (candidate) => exceptionValue(candidate) === exampleError(`by an API route (label ${label})`),
    );
    expect(event.tags?.['example.label']).toBe(label);
  }
  const unlabelled = await spotlight.waitForErrorEvent(
    (candidate) =>
      exceptionValue(candidate) === exampleError('by an API route') &&
      candidate.request?.query_string === 'unlabelled=1',
  );
  expect(unlabelled.tags?.['example.label']).toBeUndefined();
});

/** The local addresses listening on `port`, as the kernel lists them (hex, as in /proc/net/tcp). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // Field 3 is the state: 0A is LISTEN.
      .filter((fields) => fields[3] === '0A' && fields[1]?.endsWith(`:${hexPort}`))
      .map((fields) => fields[1]?.split(':')[0] ?? ''),
  );
}

test('Spotlight listens on loopback alone, as its source lookup reads any file of this machine', async ({
  spotlight,
}) => {
  test.skip(process.platform !== 'linux', "reads Linux's table of listening sockets");
  expect(spotlight).toBeDefined();
  // 127.0.0.1, written backwards; ::1 would be 00000000000000000000000001000000.
  const loopback = ['0100007F', '00000000000000000000000001000000'];
  const addresses = listeningAddresses(SPOTLIGHT_PORT);
  expect(addresses.length).toBeGreaterThan(0);
  expect(addresses.filter((address) => !loopback.includes(address))).toEqual([]);
});

test("under npm run dev the tunnel's path reaches the tunnel, which without a DSN says so and takes POST alone", async ({
  devServer,
  request,
}) => {
  expect(devServer.output()).toContain('Ready');
  const response = await request.post('/monitoring', { data: '{}\n{"type":"event"}\n{}' });
  // The tunnel's plain-text refusal, not the not-found page: the rewrite led the request there.
  expect(response.status()).toBe(404);
  expect(response.headers()['content-type']).toContain('text/plain');
  expect(await response.text()).toBe('Error reporting is not configured');
  // Another method gets production's refusal (server.mjs), not Next's empty 405.
  const get = await request.get('/monitoring');
  expect(get.status()).toBe(405);
  expect(get.headers().allow).toBe('POST');
  expect(await get.text()).toBe('Method not allowed: the tunnel takes POST');
  for (const method of ['HEAD', 'OPTIONS', 'PUT']) {
    const answer = await request.fetch('/monitoring', { method });
    expect(answer.status(), method).toBe(405);
    expect(answer.headers().allow, method).toBe('POST');
  }
});

// Last: it stops the dev server the tests above share.
test('a SIGTERM to npm alone stops everything npm run dev started, and frees both ports', async ({ devServer }) => {
  devServer.terminateNpm();
  await expect.poll(() => devServer.isRunning(), { timeout: 20_000 }).toBe(false);
  for (const url of [DEV_URL, SPOTLIGHT_URL]) {
    expect(
      await fetch(url).then(
        () => 'answering',
        () => 'free',
      ),
      url,
    ).toBe('free');
  }
});
