import type { Event } from '@sentry/core';
import { startApp } from './support/app-process';
import { expect, test } from './support/fixtures';

type StreamedSpan = { name?: string; attributes?: Record<string, { value?: unknown } | undefined> };

const notFoundName = /(^|\s)\/(404|_not-found|no-such-page)$/;

test('visiting / sends a pageload transaction', async ({ page, sink }) => {
  await page.goto('/');
  const pageload = await sink.waitForItem<Event>(
    'transaction',
    (transaction) => transaction.contexts?.trace?.op === 'pageload',
  );
  expect(pageload.transaction).toBe('/');
});

test('visiting an unknown URL sends no not-found trace, as a transaction or as spans', async ({ page, sink }) => {
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();

  // Then a page that is traced: once its pageload arrives, the not-found traces would have too.
  await page.getByRole('link', { name: 'Go to the home page' }).click();
  await expect(page).toHaveURL('/');
  await page.goto('/about');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === '/about');

  const transactions = await sink.items<Event>('transaction');
  const notFoundTransactions = transactions.filter(
    (transaction) =>
      notFoundName.test(transaction.transaction ?? '') ||
      transaction.contexts?.trace?.data?.['http.response.status_code'] === 404,
  );
  expect(notFoundTransactions.map((transaction) => transaction.transaction)).toEqual([]);

  const spans = (await sink.items<{ items?: StreamedSpan[] }>('span')).flatMap((container) => container.items ?? []);
  expect(spans.filter((span) => notFoundName.test(span.name ?? '')).map((span) => span.name)).toEqual([]);
});

test("the traced standalone server registers the SDK's diagnostics-channel hooks, without a warning", async ({
  request,
}) => {
  const app = await startApp(3111, 'channels');
  try {
    expect((await request.get(`${app.url}/status`)).status()).toBe(200);
    expect(app.output()).not.toContain('Failed to register diagnostics-channel injection hooks');
    expect(app.output()).toContain('Ready on');
  } finally {
    await app.stop();
  }
});
