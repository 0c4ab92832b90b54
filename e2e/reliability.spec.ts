import type { APIRequestContext, Page } from '@playwright/test';
import { errorEnvelope } from './support/envelopes';
import { expect, test } from './support/fixtures';
import { SENTRY_DSN } from './support/servers';
import { exampleApiErrorLabel, exceptionValue } from './support/sink';

test('errors captured while the browser is offline are delivered once it is back online', async ({
  page,
  context,
  sink,
}) => {
  await page.goto('/about');
  // The SDK is fetched once the page is idle; this case is about its offline queue.
  await page.waitForFunction(() => '__SENTRY__' in window);
  await context.setOffline(true);
  const failedSend = page.waitForEvent('requestfailed', (request) => request.url().endsWith('/monitoring'));
  await page.evaluate(() => {
    setTimeout(() => {
      throw new Error('thrown while offline');
    });
  });
  await failedSend;
  expect((await sink.errorEvents()).map(exceptionValue)).not.toContain('thrown while offline');

  await context.setOffline(false);
  await sink.waitForErrorEvent((event) => exceptionValue(event) === 'thrown while offline');
});

/**
 * Fails every script `path`'s HTML does not load itself, i.e. the SDK's chunks, as a network gone
 * after the page arrived would, until `restore()`.
 */
async function failScriptsNotIn(page: Page, request: APIRequestContext, path: string) {
  const html = await (await request.get(path)).text();
  const initialScripts = new Set(
    [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map(([, source = '']) => new URL(source, 'http://x').pathname),
  );
  let isNetworkDown = true;
  await page.route(
    (url) => url.pathname.startsWith('/_next/static/chunks/') && url.pathname.endsWith('.js'),
    (route) =>
      isNetworkDown && !initialScripts.has(new URL(route.request().url()).pathname)
        ? route.abort('internetdisconnected')
        : route.continue(),
  );
  return {
    restore() {
      isNetworkDown = false;
    },
  };
}

test('an error thrown before the SDK could be fetched, with the network gone, arrives once the browser is back', async ({
  page,
  context,
  request,
  sink,
}) => {
  const network = await failScriptsNotIn(page, request, '/about');
  await page.addInitScript(() => {
    window.addEventListener('load', () => {
      throw new Error('thrown before the SDK was there');
    });
  });
  await page.goto('/about');
  await context.setOffline(true);
  await page.waitForTimeout(1_500);
  expect(await page.evaluate(() => '__SENTRY__' in window)).toBe(false);

  network.restore();
  await context.setOffline(false);
  await sink.waitForErrorEvent((event) => exceptionValue(event) === 'thrown before the SDK was there');
});

test('a render error the error boundary caught before the SDK could be fetched arrives once the browser is back', async ({
  page,
  context,
  request,
  sink,
}) => {
  const network = await failScriptsNotIn(page, request, '/sentry-example-page');
  await page.goto('/sentry-example-page');
  await context.setOffline(true);
  await page.getByRole('button', { name: 'Break rendering' }).click();
  await expect(page.getByText('A client-side exception occurred')).toBeVisible();
  await page.waitForTimeout(1_000);
  expect(await page.evaluate(() => '__SENTRY__' in window)).toBe(false);

  network.restore();
  await context.setOffline(false);
  const rendering = 'Sentry example error thrown while rendering in the browser';
  await sink.waitForErrorEvent((event) => exceptionValue(event) === rendering);
  // Then a page load: once its trace is in, a wrongly reported chunk failure would be too.
  await page.goto('/');
  await sink.waitForItem('transaction', (transaction) => transaction.transaction === '/');
  expect((await sink.errorEvents()).map(exceptionValue)).toEqual([rendering]);
});

test('while ingest is down the tunnel keeps envelopes and delivers them in order when it is back', async ({
  request,
  sink,
}) => {
  await sink.setMode({ status: 503 });
  for (const message of ['down 1', 'down 2', 'down 3']) {
    const response = await request.post('/monitoring', { data: errorEnvelope(SENTRY_DSN, message) });
    expect(response.status(), message).toBe(200);
    expect(response.headers()['x-tunnel-spooled']).toBe('1');
  }
  expect(await sink.errorEvents()).toEqual([]);

  await sink.setMode();
  await expect
    .poll(async () => (await sink.errorEvents()).map((event) => event.message), { timeout: 20_000 })
    .toEqual(['down 1', 'down 2', 'down 3']);
});

test('a browser error captured while ingest is down arrives once it is back', async ({ page, sink }) => {
  await sink.setMode({ status: 503 });
  await page.goto('/sentry-example-page');
  const tunnelAnswer = page.waitForResponse((response) => response.url().endsWith('/monitoring'));
  await page.getByRole('button', { name: 'Throw client error' }).click();
  expect((await tunnelAnswer).status()).toBe(200);

  await sink.setMode();
  await sink.waitForErrorEvent(
    (event) => exceptionValue(event) === 'Sentry example error thrown in the browser',
    20_000,
  );
});

test('a server error captured while ingest is down arrives once it is back, once', async ({ request, sink }) => {
  await sink.setMode({ status: 503 });
  const refusedBefore = await sink.refusedErrors();
  expect((await request.get('/api/sentry-example-api?label=while-ingest-is-down')).status()).toBe(500);
  // The server's SDK has tried and been refused: from here only the spool can deliver it.
  await expect.poll(() => sink.refusedErrors(), { timeout: 10_000 }).toBeGreaterThan(refusedBefore);

  await sink.setMode();
  await sink.waitForErrorEvent((event) => exampleApiErrorLabel(event) === 'while-ingest-is-down', 20_000);
  // A second copy (the spool's and the SDK's both) would follow within moments.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const copies = (await sink.errorEvents()).filter((event) => exampleApiErrorLabel(event) === 'while-ingest-is-down');
  expect(copies).toHaveLength(1);
});

test('an ingest that hangs does not hold the browser: the tunnel answers within its timeout', async ({
  request,
  sink,
}) => {
  await sink.setMode({ delayMs: 60_000 });
  const response = await request.post('/monitoring', {
    data: errorEnvelope(SENTRY_DSN, 'sent while ingest hangs'),
    timeout: 10_000,
  });
  expect(response.status()).toBe(200);
  expect(response.headers()['x-tunnel-spooled']).toBe('1');
  // Pages do not wait on ingest at all.
  expect((await request.get('/status')).status()).toBe(200);

  await sink.setMode();
  await sink.waitForErrorEvent((event) => event.message === 'sent while ingest hangs', 25_000);
});
