import type { Event } from '@sentry/core';
import { startApp } from './support/app-process';
import { expect, test } from './support/fixtures';
import { exampleApiErrorLabel } from './support/sink';

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

test("navigating inside the app to an unknown URL sends no trace of it, though the old page's trace ends as Next reloads", async ({
  page,
  sink,
}) => {
  await page.goto('/');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.contexts?.trace?.op === 'pageload');
  // A client-side navigation, as a <Link> to a URL no route matches makes: its page data answers
  // 404, and Next loads the URL anew, which ends the old page's navigation trace.
  await page.evaluate(() =>
    (window as unknown as { next: { router: { push(href: string): void } } }).next.router.push('/no-such-page'),
  );
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();

  await page.goto('/about');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === '/about');
  const transactions = await sink.items<Event>('transaction');
  expect(
    transactions.filter((transaction) => notFoundName.test(transaction.transaction ?? '')).map((t) => t.transaction),
  ).toEqual([]);
});

/** Makes the page's next clicks slow, and clicks its heading twice: an interaction INP reports. */
async function slowInteraction(page: import('@playwright/test').Page): Promise<void> {
  await page.evaluate(() =>
    document.body.addEventListener('click', () => {
      const started = performance.now();
      while (performance.now() - started < 300) {
        // Busy: the interaction's next paint waits for this.
      }
    }),
  );
  await page.getByRole('heading', { level: 1 }).click();
  await page.getByRole('heading', { level: 1 }).click();
}

const segmentOf = (span: StreamedSpan) => span.attributes?.['sentry.segment.name']?.value;

test('a slow interaction on the not-found screen sends no INP span of it, while one on a page sends its own', async ({
  page,
  sink,
}) => {
  // A page first: its INP span shows that interactions are reported at all here.
  await page.goto('/about');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === '/about');
  await slowInteraction(page);
  await page.goto('/no-such-page-clicked');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  // Interactions are reported once the SDK is in, which loads when the page is idle.
  await page.waitForFunction(() => '__SENTRY__' in window);
  await slowInteraction(page);
  await page.goto('/status');
  await sink.waitForItem<{ items?: StreamedSpan[] }>('span', (container) =>
    (container.items ?? []).some((span) => segmentOf(span) === '/about'),
  );
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === '/status');

  const spans = (await sink.items<{ items?: StreamedSpan[] }>('span')).flatMap((container) => container.items ?? []);
  expect(spans.filter((span) => segmentOf(span) === '/no-such-page-clicked').map((span) => span.name)).toEqual([]);
});

/** The ids of a transaction's own span and of every span in it. */
function spanIdsOf(transaction: Event): (string | undefined)[] {
  return [transaction.contexts?.trace?.span_id, ...(transaction.spans ?? []).map((span) => span.span_id)];
}

/** Transactions at the sink, server and browser, by their trace id. */
function inTrace(transactions: Event[], traceId: string): Event[] {
  return transactions.filter((transaction) => transaction.contexts?.trace?.trace_id === traceId);
}

test("a page load and the server request it triggered share one trace, the server's holding Next's render spans", async ({
  page,
  sink,
}) => {
  await page.goto('/status');
  const pageload = await sink.waitForPageload('/status');
  const server = await sink.waitForTransactionInTrace('GET /status', pageload.contexts?.trace?.trace_id);
  expect(server.contexts?.trace?.op).toBe('http.server');
  // The browser's page load continues the server's span: one connected trace.
  expect(pageload.contexts?.trace?.parent_span_id).toBeDefined();
  expect(spanIdsOf(server)).toContain(pageload.contexts?.trace?.parent_span_id);
  expect((server.spans ?? []).map((span) => span.description)).toContain('render route (app) /status');
});

test("a server action is a transaction in its page's trace, and Next's pass through the proxy before it is named after the proxy", async ({
  page,
  sink,
}) => {
  await page.goto('/status');
  const traceId = (await sink.waitForPageload('/status')).contexts?.trace?.trace_id ?? '';
  await page.getByRole('button', { name: 'Check again' }).click();
  const action = await sink.waitForTransactionInTrace('POST /status', traceId);
  expect(action.contexts?.trace?.op).toBe('http.server');
  // proxy.ts checks every server action before Next routes it, in a request pass of its own.
  const proxyPass = await sink.waitForTransactionInTrace('middleware POST', traceId);
  expect((proxyPass.spans ?? []).map((span) => span.description)).toContain('middleware POST');
  const names = inTrace(await sink.items<Event>('transaction'), traceId).map((transaction) => transaction.transaction);
  expect(names).toEqual(expect.arrayContaining(['/status', 'GET /status', 'POST /status', 'middleware POST']));
  // Named by its method alone, it would be every action's proxy pass, and any other request's too.
  expect(names).not.toContain('POST');
});

test('a page served as built carries no trace of the request that served it, which a shared cache would hand to everyone', async ({
  page,
}) => {
  // /about is prerendered: shared caches may keep it, so what it says of one request would reach
  // every visitor after (as Sentry's own SDKs leave trace meta tags out of cached pages).
  const response = await page.goto('/about');
  expect(response?.headers()['cache-control']).toMatch(/s-maxage=\d+/);
  expect(response?.headers()['server-timing'] ?? '').not.toContain('sentry-trace');
  expect(await page.locator('meta[name="sentry-trace"], meta[name="baggage"]').count()).toBe(0);
});

test('a request whose trace is not sampled sends no trace, and its page tells the browser not to sample it', async ({
  page,
  request,
  sink,
}) => {
  // The caller decided: not sampled. The server decides once, as the request arrives, and
  // Next opens no span for it.
  const traceId = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
  await page.route('**/status', (route) =>
    route.continue({ headers: { ...route.request().headers(), 'sentry-trace': `${traceId}-bbbbbbbbbbbbbbbb-0` } }),
  );
  await page.goto('/status');
  await expect(page.locator('meta[name="sentry-trace"]')).toHaveAttribute(
    'content',
    new RegExp(`^${traceId}-[0-9a-f]{16}-0$`),
  );
  await page.unroute('**/status');
  // Nor do the spans of the client libraries it uses.
  const pooled = await request.get('/api/sentry-example-pool', {
    headers: { 'sentry-trace': `${traceId}-cccccccccccccccc-0` },
  });
  expect(pooled.status()).toBe(200);

  // Then a sampled page: once its traces arrived, the unsampled one's would have too.
  await page.goto('/about');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === '/about');
  await page.goto('/status');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === 'GET /status');
  expect(inTrace(await sink.items<Event>('transaction'), traceId)).toEqual([]);
});

test('health and readiness probes send no transaction, even in a sampled trace', async ({ page, request, sink }) => {
  // Every request is traced here (rate 1), and the caller asks for this trace to be sampled.
  const traceId = 'dddddddddddddddddddddddddddddddd';
  for (const path of ['/api/health', '/api/ready']) {
    const probe = await request.get(path, { headers: { 'sentry-trace': `${traceId}-eeeeeeeeeeeeeeee-1` } });
    expect(probe.status()).toBe(200);
  }
  // Then a sampled request: once its transaction arrived, the probes' would have too.
  await page.goto('/status');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === 'GET /status');
  const transactions = await sink.items<Event>('transaction');
  expect(inTrace(transactions, traceId)).toEqual([]);
  const names = transactions.map((transaction) => transaction.transaction);
  expect(names).not.toContain('GET /api/health');
  expect(names).not.toContain('GET /api/ready');
});

test("a caller's trace whose ids are all zeros is not continued: no span of the request goes out in it", async ({
  page,
  request,
  sink,
}) => {
  // OpenTelemetry takes such a parent for none: each span Next opened would go out alone, in that trace.
  const zeros = '0'.repeat(32);
  const answer = await request.get('/status?caller=zeros', {
    headers: { 'sentry-trace': `${zeros}-eeeeeeeeeeeeeeee-1` },
  });
  expect(answer.status()).toBe(200);
  await page.goto('/about');
  await sink.waitForItem<Event>('transaction', (transaction) => transaction.transaction === 'GET /about');
  expect(inTrace(await sink.items<Event>('transaction'), zeros)).toEqual([]);
});

test("with tracing, scope data set in one request never reaches another's event, sampled or not", async ({
  request,
  sink,
}) => {
  // Side by side: requests traced (every trace is sampled in this build) and requests continuing a
  // caller's unsampled trace, which server.mjs decides for before Next runs.
  const calls = Array.from({ length: 8 }, (_, index) => ({
    label: `traced-${index}`,
    callerTraceId: index % 2 === 1 ? `${index}`.repeat(32) : undefined,
  }));
  const responses = await Promise.all(
    calls.map(({ label, callerTraceId }) =>
      request.get(`/api/sentry-example-api?label=${label}`, {
        headers: callerTraceId ? { 'sentry-trace': `${callerTraceId}-dddddddddddddddd-0` } : {},
      }),
    ),
  );
  expect(responses.map((response) => response.status())).toEqual(calls.map(() => 500));

  const callOf = (event: Event) => calls.find(({ label }) => label === exampleApiErrorLabel(event));
  await expect
    .poll(async () => (await sink.errorEvents()).filter((event) => callOf(event) !== undefined).length)
    .toBe(calls.length);
  const events = (await sink.errorEvents()).filter((event) => callOf(event) !== undefined);
  for (const event of events) {
    const call = callOf(event);
    expect(event.tags?.['example.label']).toBe(call?.label);
    if (call?.callerTraceId) expect(event.contexts?.trace?.trace_id).toBe(call.callerTraceId);
  }
  // Each request in a trace of its own: none took another's.
  expect(new Set(events.map((event) => event.contexts?.trace?.trace_id)).size).toBe(calls.length);
});

test("a traced request that uses an instrumented client library shows the library's span", async ({
  request,
  sink,
}) => {
  expect((await request.get('/api/sentry-example-pool')).status()).toBe(200);
  const transaction = await sink.waitForItem<Event>(
    'transaction',
    (item) => item.transaction === 'GET /api/sentry-example-pool',
  );
  // Recorded by OpenTelemetry's generic-pool instrumentation (lib/observability/traced-packages.ts).
  const poolSpan = (transaction.spans ?? []).find((span) => span.description === 'generic-pool.acquire');
  expect(poolSpan?.origin).toBe('auto.db.otel.generic_pool');
  expect(spanIdsOf(transaction)).toContain(poolSpan?.parent_span_id);
});

test("the traced standalone server loads none of Sentry's runtime channel injection, nor a module-hook thread", async ({
  request,
}) => {
  // NODE_DEBUG=module,esm: Node logs every module it loads, CommonJS or ES.
  const app = await startApp(3111, 'channels', { NODE_DEBUG: 'module,esm' });
  try {
    expect((await request.get(`${app.url}/api/sentry-example-pool`)).status()).toBe(200);
    expect(app.output()).toMatch(/@opentelemetry\/instrumentation-generic-pool/);
    expect(app.output()).not.toContain('server-runtime-injection');
    expect(app.output()).not.toContain('Failed to register diagnostics-channel injection hooks');
    expect(app.output()).not.toMatch(/: Storing file:\/\/\S*\/hook\.m?js /);
    expect(app.output()).toContain('Ready on');
  } finally {
    await app.stop();
  }
});
