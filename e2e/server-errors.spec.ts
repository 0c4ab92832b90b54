import type { Event } from '@sentry/core';
import { expect, test } from './support/fixtures';
import { APP_URL } from './support/servers';
import { exampleApiErrorLabel, exceptionValue } from './support/sink';

const isExampleError = (where: string) => (value: string | undefined) =>
  value === `Sentry example error thrown ${where}`;

test('a server component error shows a digest that equals the digest tag of its one Sentry event', async ({
  page,
  sink,
}) => {
  const response = await page.goto('/sentry-example-page/server-error');
  expect(response?.status()).toBe(500);

  const digest = (await page.getByTestId('error-digest').textContent()) ?? '';
  expect(digest).not.toBe('');
  await expect(page.getByText('A server-side exception occurred')).toBeVisible();
  // The message and stack stay on the server.
  await expect(page.getByText('while rendering a server component')).toHaveCount(0);

  const event = await sink.waitForErrorEvent((candidate) => candidate.tags?.digest === digest);
  expect(isExampleError('while rendering a server component')(exceptionValue(event))).toBe(true);

  // The browser's pageload trace leaves after anything its error boundary would report, so once
  // it has arrived a wrongly re-reported copy would be here too.
  await sink.waitForItem('transaction', (transaction) => transaction.contexts?.trace?.op === 'pageload');
  const events = await sink.errorEvents();
  expect(events.filter((candidate) => candidate.tags?.digest === digest)).toHaveLength(1);
  expect(events.filter((candidate) => candidate.platform !== 'node')).toEqual([]);
});

test('the failing API route answers 500 and its event names GET /api/sentry-example-api, with the request URL', async ({
  request,
  sink,
}) => {
  const response = await request.get('/api/sentry-example-api?probe=url');
  expect(response.status()).toBe(500);

  const event = await sink.waitForErrorEvent(
    (candidate) =>
      isExampleError('by an API route')(exceptionValue(candidate)) && candidate.request?.query_string === 'probe=url',
  );
  expect(event.transaction).toBe('GET /api/sentry-example-api');
  expect(event.tags?.digest).toEqual(expect.any(String));
  expect(event.request).toMatchObject({ url: `${APP_URL}/api/sentry-example-api?probe=url`, method: 'GET' });
});

test("a server error's event and its request's transaction hold no client address, cookie or secret of the request", async ({
  request,
  sink,
}) => {
  const response = await request.get('/api/sentry-example-api?probe=privacy&token=QUERYSECRET', {
    headers: {
      cookie: 'session=COOKIESECRET',
      authorization: 'Bearer HEADERSECRET',
      'x-forwarded-for': '198.51.100.9',
      'x-real-ip': '198.51.100.9',
      referer: 'http://127.0.0.1/reset?token=REFERERSECRET',
    },
  });
  expect(response.status()).toBe(500);

  const event = await sink.waitForErrorEvent((candidate) =>
    (candidate.request?.query_string ?? '').toString().includes('probe=privacy'),
  );
  expect(event.user?.ip_address).toBeUndefined();
  expect(event.request?.cookies).toBeUndefined();
  const headers = Object.keys(event.request?.headers ?? {});
  for (const name of ['cookie', 'x-forwarded-for', 'x-real-ip']) expect(headers).not.toContain(name);
  expect(event.contexts?.nextjs).toMatchObject({ request_path: '/api/sentry-example-api' });
  expect(event.request?.headers?.referer).toBe('http://127.0.0.1/reset?token=[Filtered]');
  const secrets = /QUERYSECRET|COOKIESECRET|HEADERSECRET|REFERERSECRET|198\.51\.100\.9|127\.0\.0\.1"/;
  expect(JSON.stringify(event)).not.toMatch(secrets);

  // Every request of this build is traced: its transaction, built from Next's spans, names the URL.
  const transaction = await sink.waitForItem('transaction', (candidate) =>
    String(candidate.contexts?.trace?.data?.['http.target'] ?? '').includes('probe=privacy'),
  );
  expect(transaction.contexts?.trace?.data?.['http.target']).toBe(
    '/api/sentry-example-api?probe=privacy&token=[Filtered]',
  );
  expect(JSON.stringify(transaction)).not.toMatch(secrets);
});

// The server's transport keeps its connections to ingest, in a pool of its own on the tunnel's
// ingest client (lib/tunnel/ingest-transport.ts): without it, every error and every sampled
// request's transaction would pay a connection, over HTTPS a TLS handshake.
test('the server delivers to ingest over connections it keeps open, not a new one for each envelope', async ({
  request,
  sink,
}) => {
  const labels = Array.from({ length: 5 }, (_, index) => `kept-alive-${index}`);
  for (const label of labels) {
    expect((await request.get(`/api/sentry-example-api?label=${label}`)).status()).toBe(500);
    // One request at a time, each error at ingest before the next: its connection is then free, or
    // about to be (the sink keeps an envelope before it answers), for a later envelope to reuse.
    await sink.waitForErrorEvent((event) => exampleApiErrorLabel(event) === label);
  }
  // Each request sent its error and, traced, its transaction: ten envelopes or more. A transport
  // that opened a connection for each would show as many connections; one that keeps them, a few.
  const envelopes = await sink.envelopes();
  const errors = envelopes.filter((envelope) =>
    envelope.items.some(
      (item) => item.header.type === 'event' && labels.includes(exampleApiErrorLabel(item.payload as Event) ?? ''),
    ),
  );
  expect(errors).toHaveLength(labels.length);
  expect(envelopes.every((envelope) => envelope.connection > 0)).toBe(true);
  const connections = new Set(envelopes.map((envelope) => envelope.connection));
  expect(connections.size, `${envelopes.length} envelopes`).toBeLessThanOrEqual(envelopes.length / 2);
});

test('the failing server action shows a digest that equals the digest tag of its one Sentry event', async ({
  page,
  sink,
}) => {
  await page.goto('/sentry-example-page');
  await page.getByRole('button', { name: 'Run failing server action' }).click();

  const digest = (await page.getByTestId('error-digest').textContent()) ?? '';
  expect(digest).not.toBe('');
  const event = await sink.waitForErrorEvent((candidate) => candidate.tags?.digest === digest);
  expect(isExampleError('by a server action')(exceptionValue(event))).toBe(true);

  const events = await sink.errorEvents();
  expect(events.filter((candidate) => isExampleError('by a server action')(exceptionValue(candidate)))).toHaveLength(1);
});

test('a POST with an unknown Next-Action id gets a 4xx and the app keeps serving', async ({ request }) => {
  const response = await request.post('/sentry-example-page', {
    headers: { 'next-action': '7f'.repeat(21), 'content-type': 'text/plain;charset=UTF-8' },
    data: '[]',
  });
  expect(response.status()).toBeGreaterThanOrEqual(400);
  expect(response.status()).toBeLessThan(500);

  const home = await request.get(APP_URL);
  expect(home.status()).toBe(200);
});
