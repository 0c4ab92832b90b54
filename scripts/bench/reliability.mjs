// @ts-check
// `npm run bench:reliability`: the app under load and while Sentry's ingest suffers, on loopback
// only, bounded in time (about 3 minutes with the build). Prints the figures docs/reliability.md
// records; exits 1 when a check fails. Options: --no-build reuses .next-bench.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envelopeFor, rssOf, load as run, summariseRuns, tunnelThroughput } from './measure.mjs';
import { startProcess, stopAll, waitForUrl } from './processes.mjs';

const SINK_PORT = 3299;
const APP_PORT = 3300;
const FORWARDER_PORT = 3301;
const INSPECTOR_PORT = 9330;
const SINK = `http://127.0.0.1:${SINK_PORT}`;
const APP = `http://127.0.0.1:${APP_PORT}`;
const DSN = `http://benchkey@127.0.0.1:${SINK_PORT}/1`;
const DIST_DIR = '.next-bench';
const BATCH = 5_000;
const PAGES = ['/', '/status', '/about'];
const FAILING = ['/api/sentry-example-api', '/sentry-example-page/server-error'];
const ENVELOPE = envelopeFor(DSN);

/** @type {{ name: string, ok: boolean, detail?: string }[]} */
const checks = [];
/**
 * @param {string} name
 * @param {boolean} ok
 * @param {string} detail
 */
function check(name, ok, detail) {
  checks.push({ name, ok, detail });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
}

/**
 * The envelope sink's answer, as JSON (scripts/envelope-sink.mjs).
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<any>}
 */
async function sink(path, init) {
  return (await fetch(`${SINK}${path}`, init)).json();
}
const setSinkMode = (mode = {}) => sink('/__sink/mode', { method: 'PUT', body: JSON.stringify(mode) });
const clearSink = () => sink('/__sink/envelopes', { method: 'DELETE' });
/** @typedef {{ header: { type: string }, payload: { message?: string } }} SinkItem */

/** @returns {Promise<SinkItem[]>} */
async function sinkErrorEvents() {
  /** @type {{ items: SinkItem[] }[]} */
  const envelopes = await sink('/__sink/envelopes');
  return envelopes.flatMap((envelope) => envelope.items.filter((item) => item.header.type === 'event'));
}

/** The app's heap after a full GC, through the inspector (no test-only route in the app). */
async function connectInspector() {
  const [target] = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
  let id = 0;
  /**
   * @param {string} method
   * @returns {Promise<any>}
   */
  const call = (method) =>
    new Promise((resolve) => {
      const callId = ++id;
      const onMessage = (/** @type {MessageEvent} */ message) => {
        const data = JSON.parse(message.data);
        if (data.id === callId) {
          socket.removeEventListener('message', onMessage);
          resolve(data.result);
        }
      };
      socket.addEventListener('message', onMessage);
      socket.send(JSON.stringify({ id: callId, method }));
    });
  return {
    async heapAfterGc() {
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.collectGarbage');
      return (await call('Runtime.getHeapUsage')).usedSize;
    },
    close: () => socket.close(),
  };
}

/** @param {number} bytes */
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * A hostile body: random bytes, or an envelope with a large payload mutated at random.
 * @param {number} index
 */
function hostileBody(index) {
  const size = 1_024 + ((index * 7_919) % (256 * 1_024));
  if (index % 3 === 0) return crypto.getRandomValues(new Uint8Array(Math.min(size, 65_536)));
  const header = index % 3 === 1 ? `{"dsn":"${DSN}"}` : '{"dsn":"https://k@evil.example/9","dsn":"x"}';
  const payload = `{"message":"${'x'.repeat(size)}"}`;
  const body = new TextEncoder().encode(
    `${header}\n{"type":"event","length":${payload.length + (index % 5)}}\n${payload}`,
  );
  return index % 2 === 0 ? body.subarray(0, Math.floor(body.length * 0.7)) : body;
}

/**
 * RSS and heap of the app while 3,000 hostile bodies arrive at the tunnel, and 20 s after.
 * @param {number} pid
 * @param {{ heapAfterGc: () => Promise<number> }} inspector
 */
async function memoryUnderHostileBodies(pid, inspector) {
  const heapBefore = await inspector.heapAfterGc();
  const idleRss = rssOf(pid);
  let peakRss = idleRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(pid));
  }, 50);
  /** @type {Record<number, number>} */
  const statuses = {};
  let next = 0;
  const worker = async () => {
    while (next < 3_000) {
      const body = hostileBody(next++);
      const { status } = await fetch(`${APP}/monitoring`, { method: 'POST', body }).catch(() => ({ status: 0 }));
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  clearInterval(sampler);
  peakRss = Math.max(peakRss, rssOf(pid));
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  return { idleRss, peakRss, settledRss: rssOf(pid), heapBefore, heapAfter: await inspector.heapAfterGc(), statuses };
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A 60 s outage under steady browser load (one envelope every 20 ms or so, numbered), then ingest back, answering
 * each post after 20 ms as a distant one does. How fast the spool empties while envelopes keep
 * arriving, and in what order ingest saw them.
 */
async function outageAndRecovery() {
  await clearSink();
  await setSinkMode({ status: 503 });
  let sent = 0;
  let isSending = true;
  const browser = (async () => {
    while (isSending) {
      const body = envelopeFor(DSN, `outage ${sent++}`);
      await fetch(`${APP}/monitoring`, { method: 'POST', body }).catch(() => undefined);
      await sleep(20);
    }
  })();
  await sleep(60_000);
  const backlog = sent;
  await setSinkMode({ delayMs: 20 });
  const recoveredAt = Date.now();
  const received = async () =>
    (await sinkErrorEvents()).map((item) => Number(/^outage (\d+)$/.exec(item.payload.message ?? '')?.[1] ?? -1));
  while ((await received()).filter((index) => index < backlog).length < backlog && Date.now() - recoveredAt < 60_000) {
    await sleep(100);
  }
  const drainedMs = Date.now() - recoveredAt;
  const arrivedMeanwhile = sent - backlog;
  await sleep(5_000);
  isSending = false;
  await browser;
  const deadline = Date.now() + 30_000;
  let order = await received();
  while (order.length < sent && Date.now() < deadline) {
    await sleep(200);
    order = await received();
  }
  await setSinkMode();
  // How far any envelope arrived from its place: 0 in a strict order.
  const displacement = Math.max(0, ...order.map((index, position) => Math.abs(index - position)));
  return { backlog, drainedMs, arrivedMeanwhile, sent, received: order.length, displacement };
}

/** @param {number} expected */
async function waitForEventCount(expected, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let count = 0;
  while (Date.now() < deadline) {
    count = (await sinkErrorEvents()).length;
    if (count >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // A little longer, so a duplicate report would show up too.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return (await sinkErrorEvents()).length;
}

/** @param {string} label */
async function mixedBatch(label) {
  await clearSink();
  const result = await run({
    url: APP,
    amount: BATCH,
    requests: [...PAGES, ...FAILING].map((path) => ({ path })),
  });
  const byStatus = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
  );
  const failing = byStatus['500'] ?? 0;
  const expectedFailing = (BATCH * FAILING.length) / (PAGES.length + FAILING.length);
  const unexpected = Object.entries(byStatus).filter(([code]) => code !== '200' && code !== '500');
  check(
    `${label}: ${BATCH} mixed requests`,
    result.errors === 0 && result.timeouts === 0 && unexpected.length === 0 && failing === expectedFailing,
    `statuses ${JSON.stringify(byStatus)}, errors ${result.errors}, timeouts ${result.timeouts}, ${Math.round(result.requests.average)} req/s`,
  );
  const events = await waitForEventCount(failing);
  check(
    `${label}: every server error reported exactly once`,
    events === failing,
    `${events} events for ${failing} errors`,
  );
  return result;
}

/**
 * @param {string} label
 * @param {{ status?: number, delayMs?: number }} mode what the sink does with each post
 */
async function pageLatencyWhileReporting(label, mode) {
  await setSinkMode(mode);
  await clearSink();
  const errors = run({
    url: APP,
    connections: 4,
    duration: 6,
    requests: [
      { path: '/api/sentry-example-api' },
      { path: '/monitoring', method: 'POST', body: ENVELOPE, headers: { 'content-type': 'text/plain' } },
    ],
  });
  const pages = await run({ url: APP, duration: 5, requests: PAGES.map((path) => ({ path })) });
  await errors;
  await setSinkMode();
  return {
    label,
    p50: pages.latency.p50,
    p99: pages.latency.p99,
    perSecond: pages.requests.average,
    non2xx: pages.non2xx,
  };
}

try {
  if (!process.argv.includes('--no-build')) {
    console.log('building the app into .next-bench ...');
    const build = spawnSync('node', ['scripts/build.mjs'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: DIST_DIR, NEXT_PUBLIC_SENTRY_DSN: DSN },
    });
    if (build.status !== 0) throw new Error('next build failed');
  }

  const spoolDir = join(tmpdir(), `bench-spool-${process.pid}`);
  startProcess('node', ['scripts/envelope-sink.mjs', String(SINK_PORT)]);
  startProcess('node', ['scripts/bench/minimal-forwarder.mjs', String(FORWARDER_PORT), `${SINK}/api/1/envelope/`]);
  const app = startProcess('node', [`--inspect=127.0.0.1:${INSPECTOR_PORT}`, 'scripts/start.mjs'], {
    NEXT_TELEMETRY_DISABLED: '1',
    NEXT_DIST_DIR: DIST_DIR,
    NEXT_PUBLIC_SENTRY_DSN: DSN,
    PORT: String(APP_PORT),
    HOSTNAME: '127.0.0.1',
    ENABLE_SENTRY_EXAMPLES: 'true',
    SENTRY_TUNNEL_RATE_LIMIT: '1000000000',
    SENTRY_TUNNEL_SPOOL_DIR: spoolDir,
  });
  const appPid = app.child.pid;
  if (appPid === undefined) throw new Error('the app did not start');
  await waitForUrl(`${SINK}/health`);
  await waitForUrl(`${APP}/about`);
  const inspector = await connectInspector();

  console.log('\n# Load: failing routes mixed with pages');
  await mixedBatch('warm-up batch');
  const heapBefore = await inspector.heapAfterGc();
  const rssBefore = rssOf(appPid);
  await mixedBatch('batch 1');
  const heapAfterOne = await inspector.heapAfterGc();
  const rssAfterOne = rssOf(appPid);
  await mixedBatch('batch 2');
  const heapAfterTwo = await inspector.heapAfterGc();
  const rssAfterTwo = rssOf(appPid);
  const growth = (heapAfterTwo - heapAfterOne) / heapAfterOne;
  check(
    'heap after batch 2 vs batch 1 (forced GC)',
    growth < 0.01,
    `${(heapAfterOne / 2 ** 20).toFixed(1)} MB -> ${(heapAfterTwo / 2 ** 20).toFixed(1)} MB (${(growth * 100).toFixed(2)} %); before load ${(heapBefore / 2 ** 20).toFixed(1)} MB`,
  );
  console.log(
    `info RSS: ${(rssBefore / 2 ** 20).toFixed(0)} MB after warm-up, ${(rssAfterOne / 2 ** 20).toFixed(0)} MB after batch 1, ${(rssAfterTwo / 2 ** 20).toFixed(0)} MB after batch 2`,
  );

  console.log('\n# Memory under hostile bodies (3,000 to the tunnel, 10 at a time)');
  const memory = await memoryUnderHostileBodies(appPid, inspector);
  check(
    'peak RSS while 3,000 hostile bodies arrive vs idle',
    memory.peakRss - memory.idleRss <= 64 * 2 ** 20,
    `idle ${mb(memory.idleRss)}, peak ${mb(memory.peakRss)} (+${mb(memory.peakRss - memory.idleRss)}, limit +64 MB), settled after 20 s ${mb(memory.settledRss)}; heap after GC ${mb(memory.heapBefore)} -> ${mb(memory.heapAfter)}; statuses ${JSON.stringify(memory.statuses)}`,
  );
  inspector.close();

  console.log('\n# A 60 s outage under steady load, then recovery (ingest answering after 20 ms)');
  const outage = await outageAndRecovery();
  const drainRate = outage.backlog / (outage.drainedMs / 1_000);
  check(
    'the spool empties after the outage while envelopes keep arriving, none lost',
    outage.received === outage.sent && drainRate > outage.backlog / 60,
    `${outage.backlog} kept during the outage, delivered in ${(outage.drainedMs / 1_000).toFixed(1)} s (${drainRate.toFixed(0)} envelopes/s against ${(outage.backlog / 60).toFixed(0)}/s arriving, ${outage.arrivedMeanwhile} arrived meanwhile); ${outage.received} of ${outage.sent} at ingest; largest displacement from arrival order ${outage.displacement}`,
  );

  console.log('\n# Tunnel throughput (A B A B, 5 s each, 10 connections)');
  const ours = [];
  const minimal = [];
  for (let round = 0; round < 2; round++) {
    await clearSink();
    ours.push(await tunnelThroughput(`${APP}/monitoring`, ENVELOPE));
    await clearSink();
    minimal.push(await tunnelThroughput(`http://127.0.0.1:${FORWARDER_PORT}/`, ENVELOPE));
  }
  const tunnel = summariseRuns(ours);
  const baseline = summariseRuns(minimal);
  console.log(
    `info our tunnel:       ${tunnel.perSecond.toFixed(0)} envelopes/s, p50 ${tunnel.p50} ms, p99 ${tunnel.p99} ms`,
  );
  console.log(
    `info minimal forwarder: ${baseline.perSecond.toFixed(0)} envelopes/s, p50 ${baseline.p50} ms, p99 ${baseline.p99} ms`,
  );
  check(
    'tunnel throughput vs a minimal Node forwarder',
    tunnel.perSecond >= 0.8 * baseline.perSecond && tunnel.non2xx === 0,
    `${(tunnel.perSecond / baseline.perSecond).toFixed(2)}x (target >= 0.8x), non-2xx ${tunnel.non2xx}`,
  );

  console.log('\n# Page latency while reporting suffers (pages under load, errors and tunnel posts alongside)');
  const healthy = await pageLatencyWhileReporting('ingest healthy', {});
  const down = await pageLatencyWhileReporting('ingest down (503)', { status: 503 });
  const slow = await pageLatencyWhileReporting('ingest answering after 60 s', { delayMs: 60_000 });
  for (const entry of [healthy, down, slow]) {
    console.log(
      `info ${entry.label}: p50 ${entry.p50} ms, p99 ${entry.p99} ms, ${entry.perSecond.toFixed(0)} req/s, non-2xx ${entry.non2xx}`,
    );
  }
  for (const entry of [down, slow]) {
    check(
      `page p99 with ${entry.label} vs healthy`,
      entry.p99 <= 1.5 * Math.max(healthy.p99, 1) && entry.non2xx === 0,
      `${entry.p99} ms vs ${healthy.p99} ms (${(entry.p99 / Math.max(healthy.p99, 1)).toFixed(2)}x, limit 1.5x)`,
    );
  }

  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    'bench/results/reliability.json',
    `${JSON.stringify({ date: new Date().toISOString(), checks, memory, outage, tunnel, baseline, latency: { healthy, down, slow } }, null, 2)}\n`,
  );
} catch (error) {
  console.error(error);
  checks.push({ name: 'run', ok: false });
} finally {
  stopAll();
}

const failed = checks.filter((entry) => !entry.ok).length;
console.log(`\n${checks.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
