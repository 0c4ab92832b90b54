import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
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

const isSinkAnswering = () =>
  fetch(`${SINK_URL}/health`).then(
    (response) => response.ok,
    () => false,
  );

test.describe.configure({ mode: 'serial' });
test.use({ baseURL: `http://localhost:${PORT}` });

// `npm run dev` with a DSN and every trace sampled, as a developer turns tracing on: the browser's
// envelopes go through the tunnel, which under `next dev` is a route of the app.
test.beforeAll(async () => {
  test.setTimeout(150_000);
  // Another sink there would answer for this one, with what an earlier run left in it.
  expect(await isSinkAnswering(), `${SINK_URL} is already taken: stop what runs there`).toBe(false);
  sinkProcess = spawn('node', ['scripts/envelope-sink.mjs', String(SINK_PORT)], { stdio: 'ignore' });
  await expect.poll(isSinkAnswering).toBe(true);
  devServer = await startDevServer({
    port: PORT,
    spotlightPort: SPOTLIGHT_PORT,
    distDir: '.next-dev-traced',
    env: {
      NEXT_PUBLIC_SENTRY_DSN: `http://dev0public0key@127.0.0.1:${SINK_PORT}/1`,
      // The server would send to SENTRY_DSN first: blank beats a developer's shell and .env files.
      SENTRY_DSN: '',
      NEXT_PUBLIC_SENTRY_TRACES_SAMPLE_RATE: '1',
    },
  });
});

test.afterAll(async () => {
  await devServer?.stop();
  if (sinkProcess !== undefined && sinkProcess.exitCode === null) {
    const exited = once(sinkProcess, 'exit');
    sinkProcess.kill();
    await exited;
  }
});

/** The server's transaction of `path` in the trace of its page load. */
async function serverTransactionOf(path: string): Promise<Event> {
  // The first compile of a page can take a while.
  const pageload = await sink.waitForPageload(path, 60_000);
  return sink.waitForTransactionInTrace(`GET ${path}`, pageload.contexts?.trace?.trace_id);
}

test("under npm run dev with tracing, a page load and its server request share one trace, and neither the tunnel's own requests, nor health probes, nor a caller's unsampled trace send any", async ({
  page,
}) => {
  test.setTimeout(150_000);
  await sink.clear();
  const tunnelPosts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/monitoring')
      tunnelPosts.push(request.url());
  });

  await page.goto('/status');
  expect((await serverTransactionOf('/status')).contexts?.trace?.op).toBe('http.server');
  // Probes, even in a caller's sampled trace; the page after them shows their transactions had time.
  for (const path of ['/api/health', '/api/ready']) {
    const probe = await page.request.get(path, {
      headers: { 'sentry-trace': `${'f'.repeat(32)}-${'e'.repeat(16)}-1` },
    });
    expect(probe.status()).toBe(200);
  }
  // A trace its caller left undecided but marked unsampled in its baggage: decided as `npm start`
  // decides it.
  const unsampledTrace = 'd'.repeat(32);
  const headers = {
    'sentry-trace': `${unsampledTrace}-${'c'.repeat(16)}`,
    baggage: `sentry-trace_id=${unsampledTrace},sentry-sampled=false`,
  };
  expect((await page.request.get('/status', { headers })).status()).toBe(200);
  await page.goto('/about');
  expect((await serverTransactionOf('/about')).contexts?.trace?.op).toBe('http.server');

  // Each page load reached the sink through the tunnel's route. A transaction of a tunnel request
  // would be sent as that request ends, moments after.
  expect(tunnelPosts.length).toBeGreaterThan(0);
  await page.waitForTimeout(2_000);
  const transactions = await sink.items<Event>('transaction');
  const names = transactions.map((transaction) => transaction.transaction ?? '');
  expect(names.filter((name) => /monitoring|dev-tunnel|api\/health|api\/ready/.test(name))).toEqual([]);
  const traceIds = transactions.map((transaction) => transaction.contexts?.trace?.trace_id);
  expect(traceIds.filter((traceId) => traceId === unsampledTrace)).toEqual([]);
});
