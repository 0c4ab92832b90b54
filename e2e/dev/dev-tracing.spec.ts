import { type ChildProcess, spawn } from 'node:child_process';
import { expect, test } from '@playwright/test';
import type { Event } from '@sentry/core';
import { EnvelopeSink } from '../support/sink';
import { type DevServer, startDevServer } from './dev-server';

// Beside the dev loop's ports (dev-server.ts) and the browser tests' sink (e2e/support/servers.ts).
const PORT = 3301;
const SPOTLIGHT_PORT = 8971;
const SINK_PORT = 3298;
const SINK_URL = `http://127.0.0.1:${SINK_PORT}`;

const sink = new EnvelopeSink(SINK_URL);
let sinkProcess: ChildProcess | undefined;
let devServer: DevServer | undefined;

test.describe.configure({ mode: 'serial' });
test.use({ baseURL: `http://localhost:${PORT}` });

// `npm run dev` with a DSN and every trace sampled, as a developer turns tracing on: the browser's
// envelopes go through the tunnel, which under `next dev` is a route of the app.
test.beforeAll(async () => {
  test.setTimeout(150_000);
  sinkProcess = spawn('node', ['scripts/envelope-sink.mjs', String(SINK_PORT)], { stdio: 'ignore' });
  await expect
    .poll(() =>
      fetch(`${SINK_URL}/health`).then(
        (response) => response.ok,
        () => false,
      ),
    )
    .toBe(true);
  devServer = await startDevServer({
    port: PORT,
    spotlightPort: SPOTLIGHT_PORT,
    distDir: '.next-dev-traced',
    env: {
      NEXT_PUBLIC_SENTRY_DSN: `http://dev0public0key@127.0.0.1:${SINK_PORT}/1`,
      NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: '1',
    },
  });
});

test.afterAll(async () => {
  await devServer?.stop();
  sinkProcess?.kill();
});

const isPageload = (path: string) => (transaction: Event) =>
  transaction.contexts?.trace?.op === 'pageload' && transaction.transaction === path;

test("under npm run dev with tracing, a page load and its server request share one trace, and the tunnel's own requests send none", async ({
  page,
}) => {
  await page.goto('/status');
  // Its first compile can take a while.
  const pageload = await sink.waitForItem<Event>('transaction', isPageload('/status'), 60_000);
  const traceId = pageload.contexts?.trace?.trace_id;
  const server = await sink.waitForItem<Event>(
    'transaction',
    (transaction) => transaction.transaction === 'GET /status' && transaction.contexts?.trace?.trace_id === traceId,
  );
  expect(server.contexts?.trace?.op).toBe('http.server');

  // Each page load above reached the sink through the tunnel's route, one request each.
  await page.goto('/about');
  await sink.waitForItem<Event>('transaction', isPageload('/about'), 30_000);
  // A transaction of a tunnel request would be sent as that request ends, moments after.
  await page.waitForTimeout(2_000);
  const names = (await sink.items<Event>('transaction')).map((transaction) => transaction.transaction ?? '');
  expect(names.filter((name) => /monitoring|dev-tunnel/.test(name))).toEqual([]);
  expect(names).toEqual(expect.arrayContaining(['GET /status', '/status', 'GET /about', '/about']));
});
