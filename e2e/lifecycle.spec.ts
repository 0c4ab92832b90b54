import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AppProcess, buildApp, runAppUntilExit, startApp, withCopyOfBuild } from './support/app-process';
import { errorEnvelope } from './support/envelopes';
import { expect, test } from './support/fixtures';
import { APP_BUILD_ENV, appRunEnv, SENTRY_DSN } from './support/servers';
import { exampleApiErrorLabel, exceptionValue } from './support/sink';

// Each test starts its own instance of the production build, so it can stop it.
test.describe.configure({ timeout: 90_000 });

let app: AppProcess | undefined;
test.afterEach(async () => {
  await app?.stop('SIGKILL');
  app = undefined;
});

test('one client over its cap gets 429 with Retry-After, and nothing more is forwarded', async ({ sink }) => {
  app = await startApp(3102, 'limit', { SENTRY_TUNNEL_RATE_LIMIT: '3' });
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let attempt = 1; attempt <= 5; attempt++) {
    const response = await fetch(`${app.url}/monitoring`, {
      method: 'POST',
      body: errorEnvelope(SENTRY_DSN, `attempt ${attempt}`),
    });
    statuses.push(response.status);
    retryAfter = response.headers.get('retry-after') ?? retryAfter;
  }
  expect(statuses).toEqual([200, 200, 200, 429, 429]);
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect((await sink.errorEvents()).map((event) => event.message).sort()).toEqual([
    'attempt 1',
    'attempt 2',
    'attempt 3',
  ]);
});

test('on SIGTERM the server finishes requests in flight, flushes the last error and exits 0', async ({ sink }) => {
  app = await startApp(3103, 'shutdown');

  // A tunnel request held open by a slow ingest is in flight when the signal arrives.
  await sink.setMode({ delayMs: 1_500 });
  const inFlight = fetch(`${app.url}/monitoring`, { method: 'POST', body: errorEnvelope(SENTRY_DSN, 'in flight') });
  const apiError = await fetch(`${app.url}/api/sentry-example-api`);
  expect(apiError.status).toBe(500);

  const exitCode = await app.stop('SIGTERM');
  expect(exitCode, app.output()).toBe(0);
  expect((await inFlight).status).toBe(200);
  const events = await sink.errorEvents();
  expect(events.map(exceptionValue)).toContain('Sentry example error thrown by an API route');
  expect(events.map((event) => event.message)).toContain('in flight');
});

test('on SIGTERM with a client stuck mid-upload, the server cuts it, flushes the last error and exits 0 in time', async ({
  sink,
}) => {
  app = await startApp(3109, 'stuck');
  // A tunnel upload that announces 1,000 bytes and sends 10, then nothing: a phone on a bad
  // network, or a slowloris.
  const stuck = connect({ host: '127.0.0.1', port: 3109 });
  await new Promise((resolve) => stuck.once('connect', resolve));
  stuck.write('POST /monitoring HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n0123456789');
  const cut = new Promise((resolve) => stuck.once('close', resolve));
  const answered: Buffer[] = [];
  stuck.on('data', (chunk: Buffer) => answered.push(chunk));
  expect((await fetch(`${app.url}/api/sentry-example-api`)).status).toBe(500);

  const signalledAt = Date.now();
  const exitCode = await app.stop('SIGTERM');
  const tookMs = Date.now() - signalledAt;
  expect(exitCode, app.output()).toBe(0);
  // The drain (5 s) and the flush (2 s) are bounded; the hard limit is 10 s.
  expect(tookMs).toBeLessThan(9_000);
  await cut;
  // The partial upload was never acknowledged, so the SDK would send it again.
  expect(Buffer.concat(answered).toString()).not.toContain('200 OK');
  await sink.waitForErrorEvent((event) => exceptionValue(event) === 'Sentry example error thrown by an API route');
});

test('envelopes kept while ingest was down are delivered after the server restarts', async ({ sink }) => {
  await sink.setMode({ status: 503 });
  app = await startApp(3104, 'restart');
  const response = await fetch(`${app.url}/monitoring`, {
    method: 'POST',
    body: errorEnvelope(SENTRY_DSN, 'kept across a restart'),
  });
  expect(response.headers.get('x-tunnel-spooled')).toBe('1');
  expect(await app.stop('SIGTERM')).toBe(0);

  await sink.setMode();
  app = await startApp(3104, 'restart', {}, { keepSpool: true });
  await sink.waitForErrorEvent((event) => event.message === 'kept across a restart', 20_000);
});

test('on SIGTERM while ingest hangs, the server keeps the error it has not had an answer for, exits 0, and delivers it after a restart', async ({
  sink,
}) => {
  // Ingest takes the envelope and answers only after the flush's 2 s: the process would take it along.
  await sink.setMode({ delayMs: 30_000 });
  app = await startApp(3114, 'hung');
  expect((await fetch(`${app.url}/api/sentry-example-api?label=hung`)).status).toBe(500);
  expect(await app.stop('SIGTERM'), app.output()).toBe(0);
  expect(app.output()).not.toContain('were lost');

  await sink.setMode();
  app = await startApp(3114, 'hung', {}, { keepSpool: true });
  await sink.waitForErrorEvent((event) => exampleApiErrorLabel(event) === 'hung', 20_000);
});

test("without tracing, scope data set in one request never reaches another request's event", async ({ sink }) => {
  // The build without a DSN, given one at run time: errors reported, nothing traced, so no
  // Http integration; each request's isolation scope comes from server.mjs alone.
  app = await startApp(3105, 'isolation', {
    NEXT_DIST_DIR: '.next-bare',
    SENTRY_DSN,
  });
  const labels = Array.from({ length: 8 }, (_, index) => `request-${index}`);
  const responses = await Promise.all(
    labels.map((label) => fetch(`${app?.url}/api/sentry-example-api?label=${label}`)),
  );
  expect(responses.map((response) => response.status)).toEqual(labels.map(() => 500));

  await expect
    .poll(async () => (await sink.errorEvents()).filter((event) => exampleApiErrorLabel(event) !== undefined).length)
    .toBe(labels.length);
  for (const event of await sink.errorEvents()) {
    const label = exampleApiErrorLabel(event);
    if (label !== undefined) {
      expect(event.tags?.['example.label']).toBe(label);
    }
  }
});

test("a server built without tracing reports its errors without loading Sentry's runtime channel injection", async ({
  sink,
}) => {
  // NODE_DEBUG=module,esm: Node logs every module it loads, CommonJS or ES. No build loads the
  // package (the traced one: tracing.spec.ts); this one reports errors only.
  app = await startApp(3112, 'no-channels', {
    NEXT_DIST_DIR: '.next-bare',
    SENTRY_DSN,
    NODE_DEBUG: 'module,esm',
  });
  expect((await fetch(`${app.url}/api/sentry-example-api?label=no-channels`)).status).toBe(500);
  await sink.waitForErrorEvent((event) => exampleApiErrorLabel(event) === 'no-channels');
  expect(app.output()).toContain('@opentelemetry/api');
  // Node logged ES module loads too (server.mjs is one), so the package's absence covers them.
  expect(app.output()).toMatch(/: Storing file:\/\/\S*\/server\.mjs /);
  expect(app.output()).not.toContain('server-runtime-injection');
});

test("every server build leaves Sentry's tracing and framework integrations out of its bundle, traced or not", async () => {
  // Names the integrations give themselves. The server's spans are OpenTelemetry's
  // (lib/observability/server-tracing.ts), so neither the errors-only build (.next-bare) nor the
  // traced build the other tests run holds one.
  const names = ['"Prisma"', '"Mongoose"', '"LangChain"', '"Express"', '"Koa"'];
  const namesIn = async (distDir: string) => {
    const server = join(distDir, 'server');
    const files = (await readdir(server, { recursive: true })).filter((file) => file.endsWith('.js'));
    const code = (await Promise.all(files.map((file) => readFile(join(server, file), 'utf8')))).join('\n');
    return names.filter((name) => code.includes(name));
  };
  expect(await namesIn('.next-bare')).toEqual([]);
  expect(await namesIn(APP_BUILD_ENV.NEXT_DIST_DIR)).toEqual([]);
});

test('npm run build with no telemetry variable set looks up no host but loopback in any of its Node processes', async () => {
  test.setTimeout(300_000);
  const log = join(tmpdir(), `shell-e2e-host-lookups-${process.pid}.log`);
  await rm(log, { force: true });
  // CI and the other builds set NEXT_TELEMETRY_DISABLED themselves; a newcomer's shell does not.
  const built = await buildApp({
    ...APP_BUILD_ENV,
    NEXT_DIST_DIR: '.next-quiet',
    NEXT_TELEMETRY_DISABLED: undefined,
    NODE_OPTIONS: `--import ${pathToFileURL(resolve('e2e/support/host-lookups.mjs')).href}`,
    HOST_LOOKUP_LOG: log,
  });
  expect(built.code, built.output).toBe(0);
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  await rm(log, { force: true });
  expect(lines.filter((line) => line.startsWith('loaded ')).length).toBeGreaterThan(0);
  expect(lines.filter((line) => !line.startsWith('loaded '))).toEqual([]);
});

test('a server started with an invalid environment variable exits 1 and names the variable, in a few lines', async () => {
  const { code, output } = await runAppUntilExit(3106, { SENTRY_TUNNEL_RATE_LIMIT: 'lots' });
  expect(code).toBe(1);
  expect(output).toContain('SENTRY_TUNNEL_RATE_LIMIT: must be a whole number of at least 1');
  // Said once, without stack traces, and with no other cause after it.
  expect(output.match(/SENTRY_TUNNEL_RATE_LIMIT/g)).toHaveLength(1);
  expect(output).not.toMatch(/^\s+at /m);
});

test('a server given a PORT that is not a port exits 1 and names PORT, rather than exit 0 or listen elsewhere', async () => {
  for (const value of ['abc', '70000', '1.5']) {
    const { code, output } = await runAppUntilExit(3106, { PORT: value });
    expect(code).toBe(1);
    expect(output).toContain('PORT: must be a whole number from 0 to 65535');
  }
});

/** What only the app's own server.mjs serves: each page's CSP, the tunnel, no source map of the project's build folder. */
async function expectTheAppsOwnServer(url: string): Promise<void> {
  const page = await fetch(`${url}/about`);
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self' 'sha256-");
  // The tunnel is server.mjs's: Next's own server.js would answer its path with the 404 page.
  expect((await fetch(`${url}/monitoring`)).status).toBe(405);
  // The standalone folder's files: not the source maps the project's build folder keeps for upload.
  const sourceMap = (await readdir(join('.next', 'static', 'chunks'))).find((name) => name.endsWith('.js.map'));
  expect(sourceMap).toBeDefined();
  expect((await fetch(`${url}/_next/static/chunks/${sourceMap}`)).status).toBe(404);
}

test("the standalone folder started as Next's docs say, node .next/standalone/server.js, runs the app's own server", async () => {
  // From the project folder, as Next's docs start it: the server works from its own folder all the same.
  app = await startApp(3113, 'server-js', {}, { entry: join('.next', 'standalone', 'server.js') });
  await expectTheAppsOwnServer(app.url);
  expect(await app.stop('SIGTERM')).toBe(0);
  app = undefined;
});

test("the standalone folder's server.js starts from a path with a space in it", async () => {
  await withCopyOfBuild('with space', async (copy) => {
    app = await startApp(3113, 'server-js-copy', {}, { entry: join(copy, 'server.js') });
    await expectTheAppsOwnServer(app.url);
    expect(await app.stop('SIGTERM')).toBe(0);
    app = undefined;
  });
});

test('a build whose prerender manifest Next shaped otherwise is refused at start-up, naming the field', async () => {
  // A copy of the production build, its manifest as a later Next might write it.
  await withCopyOfBuild('reshaped', async (copy) => {
    const manifestPath = join(copy, '.next', 'prerender-manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { routes: Record<string, object> };
    for (const [route, entry] of Object.entries(manifest.routes)) {
      const { response, ...rest } = entry as { response?: string };
      manifest.routes[route] = { ...rest, renderingMode: response === 'complete' ? 'STATIC' : 'PARTIAL' };
    }
    await writeFile(manifestPath, JSON.stringify(manifest));

    const { code, output } = await runAppUntilExit(3108, {}, copy);
    expect(code).toBe(1);
    expect(output).toMatch(/prerender-manifest\.json: routes\["[^"]+"\]\.response is undefined/);
    expect(output).toContain('as read from Next.js 16.4.6');
  });
});

test('a build whose instrumentation hook sets nothing up, fails to load or never finishes is refused at start-up, never listening', async () => {
  test.setTimeout(120_000);
  await withCopyOfBuild('hookless', async (copy) => {
    const hook = join(copy, '.next', 'server', 'instrumentation.js');
    // The hook's module as a build might leave it: loaded, and setting nothing up.
    await writeFile(hook, 'module.exports = { register() {} };\n');
    let { code, output } = await runAppUntilExit(3108, {}, copy);
    expect(code, output).toBe(1);
    expect(output).toContain('The instrumentation hook did not set up the app (lib/server/seam.mjs); not serving.');
    expect(output).not.toContain('Ready on');

    // One that throws as it loads.
    await writeFile(hook, "throw new Error('the hook module failed as it loaded');\n");
    ({ code, output } = await runAppUntilExit(3108, {}, copy));
    expect(code, output).toBe(1);
    expect(output).toContain(
      'Next could not set up its server: An error occurred while loading the instrumentation hook (the hook module failed as it loaded); not serving.',
    );
    expect(output).not.toContain('Ready on');

    // One whose register() never returns.
    await writeFile(hook, 'module.exports = { register: () => new Promise(() => {}) };\n');
    ({ code, output } = await runAppUntilExit(3108, {}, copy, 60_000));
    expect(code, output).toBe(1);
    expect(output).toContain('The instrumentation hook did not finish within 30000 ms; not serving.');
    expect(output).not.toContain('Ready on');
  });
});

test('a server whose spool folder cannot be written refuses to start, naming the folder', async () => {
  const notAFolder = join(tmpdir(), `shell-e2e-spool-file-${process.pid}`);
  await writeFile(notAFolder, 'a file where the spool folder should be');
  try {
    const { code, output } = await runAppUntilExit(3110, { SENTRY_TUNNEL_SPOOL_DIR: notAFolder });
    expect(code).toBe(1);
    expect(output).toContain(`SENTRY_TUNNEL_SPOOL_DIR: cannot write to ${notAFolder}`);
  } finally {
    await rm(notAFolder, { force: true });
  }
});

test('while ingest is down and the spool cannot be written, the tunnel answers 503 with Retry-After, says so on /api/health, and recovers', async ({
  sink,
}) => {
  app = await startApp(3111, 'unwritable');
  const spoolDir = appRunEnv('unwritable').SENTRY_TUNNEL_SPOOL_DIR ?? '';
  await sink.setMode({ status: 503 });
  await rm(spoolDir, { recursive: true, force: true });
  await writeFile(spoolDir, 'the disk went away');
  try {
    const refused = await fetch(`${app.url}/monitoring`, {
      method: 'POST',
      body: errorEnvelope(SENTRY_DSN, 'not kept'),
    });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await (await fetch(`${app.url}/api/health`)).json()).spool).toMatch(/^cannot write \(E[A-Z]+\)$/);
  } finally {
    await rm(spoolDir, { force: true });
  }
  const kept = await fetch(`${app.url}/monitoring`, { method: 'POST', body: errorEnvelope(SENTRY_DSN, 'kept again') });
  expect(kept.status).toBe(200);
  expect(kept.headers.get('x-tunnel-spooled')).toBe('1');
  expect((await (await fetch(`${app.url}/api/health`)).json()).spool).toBe('ok');
  await sink.setMode();
  await sink.waitForErrorEvent((event) => event.message === 'kept again', 20_000);
  expect(app.output().match(/Tunnel spool: cannot write/g)).toHaveLength(1);
});

test('a server started on a port already in use exits 1 and says so', async () => {
  // 3100 is the main app's port, served throughout the browser tests.
  const { code, output } = await runAppUntilExit(3100, {});
  expect(code).toBe(1);
  expect(output).toContain('Cannot listen on 127.0.0.1:3100');
});

test('on SIGTERM readiness answers 503 while pages are still served, then the server exits 0', async () => {
  app = await startApp(3107, 'drain', { SHUTDOWN_DRAIN_DELAY_MS: '3000' });
  expect((await fetch(`${app.url}/api/ready`)).status).toBe(200);

  const exited = app.stop('SIGTERM');
  await expect.poll(async () => (await fetch(`${app?.url}/api/ready`)).status).toBe(503);
  expect(await (await fetch(`${app.url}/api/ready`)).json()).toEqual({ status: 'draining' });
  expect((await fetch(`${app.url}/about`)).status).toBe(200);
  expect(await exited).toBe(0);
});
