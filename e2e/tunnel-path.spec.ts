import { type AppProcess, buildApp, startApp } from './support/app-process';
import { errorEnvelope } from './support/envelopes';
import { expect, test } from './support/fixtures';
import { APP_BUILD_ENV } from './support/servers';
import { exceptionValue } from './support/sink';

// A deployment that moved its tunnel off the default path, which content blockers list.
const DIST_DIR = '.next-relay';
const TUNNEL_PATH = '/relay';

const build = (env: Record<string, string>) => buildApp({ ...APP_BUILD_ENV, ...env });

test.describe.configure({ mode: 'serial' });

let app: AppProcess | undefined;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const built = await build({ NEXT_DIST_DIR: DIST_DIR, SENTRY_TUNNEL_PATH: TUNNEL_PATH });
  expect(built.code, built.output).toBe(0);
  app = await startApp(3110, 'relay', { NEXT_DIST_DIR: DIST_DIR });
});

test.afterAll(async () => {
  await app?.stop();
});

test('with SENTRY_TUNNEL_PATH=/relay the browser reports through /relay, and /monitoring is no tunnel', async ({
  page,
  request,
  sink,
}) => {
  const url = app?.url ?? '';
  const posted: string[] = [];
  page.on('request', (sent) => {
    if (sent.method() === 'POST') posted.push(new URL(sent.url()).pathname);
  });
  await page.goto(`${url}/sentry-example-page`);
  await page.getByRole('button', { name: 'Throw client error' }).click();
  await sink.waitForErrorEvent((event) => exceptionValue(event) === 'Sentry example error thrown in the browser');
  expect(posted).toContain(TUNNEL_PATH);
  expect(posted).not.toContain('/monitoring');

  await page.goto(`${url}/status`);
  await expect(page.getByTestId('tunnel')).toHaveText(`through the ${TUNNEL_PATH} tunnel`);

  const atOldPath = await request.post(`${url}/monitoring`, {
    data: errorEnvelope(APP_BUILD_ENV.NEXT_PUBLIC_SENTRY_DSN, 'old path'),
  });
  expect(atOldPath.status()).toBe(404);
  const atDevRoute = await request.post(`${url}/api/dev-tunnel`, {
    data: errorEnvelope(APP_BUILD_ENV.NEXT_PUBLIC_SENTRY_DSN, 'dev route'),
  });
  expect(atDevRoute.status()).toBe(404);
  const read = await request.get(`${url}${TUNNEL_PATH}`);
  expect(read.status()).toBe(405);
  expect(read.headers().allow).toBe('POST');

  const control = await request.post(`${url}${TUNNEL_PATH}`, {
    data: errorEnvelope(APP_BUILD_ENV.NEXT_PUBLIC_SENTRY_DSN, 'new path'),
  });
  expect(control.status()).toBe(200);
  await sink.waitForErrorEvent((event) => event.message === 'new path');
  const messages = (await sink.errorEvents()).map((event) => event.message);
  expect(messages).not.toContain('old path');
  expect(messages).not.toContain('dev route');
});

test('a tunnel path that is not one plain segment, or that a page already has, stops the build, naming SENTRY_TUNNEL_PATH', async () => {
  const refusals = [
    { path: '/api', message: 'SENTRY_TUNNEL_PATH: must be one path segment' },
    { path: '/status', message: 'SENTRY_TUNNEL_PATH: /status is taken by app/status' },
  ];
  for (const { path, message } of refusals) {
    const built = await build({ NEXT_DIST_DIR: '.next-relay-refused', SENTRY_TUNNEL_PATH: path });
    expect(built.code, path).not.toBe(0);
    expect(built.output).toContain(message);
  }
});
