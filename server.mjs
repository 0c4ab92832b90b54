// `npm start`: Next's production server, with a shutdown that loses nothing. On SIGTERM or SIGINT
// it answers 503 on /api/ready for SHUTDOWN_DRAIN_DELAY_MS, then stops accepting connections, lets
// requests in flight finish, flushes pending Sentry events and stops the tunnel's spool
// (lib/observability/lifecycle.ts), then exits 0, all within SHUTDOWN_TIMEOUT_MS after the delay.
// (`next start` exits 143 without flushing.) Plain JavaScript because it runs before anything is
// compiled; PORT and HOSTNAME are read here as `next start` reads them, and the drain delay beside.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import next from 'next';

const require = createRequire(import.meta.url);
// The SDK's own copy (CommonJS, as @sentry/nextjs loads it): an `import` would load the ES module
// build beside it, a second @sentry/core in memory.
const { withIsolationScope } = require('@sentry/core');

const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOSTNAME ?? '0.0.0.0';
const SHUTDOWN_TIMEOUT_MS = 10_000;
const FLUSH_TIMEOUT_MS = 2_000;
// The socket's address, for the tunnel's per-client limit; a client cannot set this header itself.
const CLIENT_SOCKET_HEADER = 'x-client-socket-address';

const TUNNEL_PATH = '/monitoring';

// How long after SIGTERM the server goes on serving while /api/ready answers 503, so a load
// balancer that polls readiness stops routing here before the listener closes. 0: close at once.
const drainDelayMs = Number(process.env.SHUTDOWN_DRAIN_DELAY_MS || 0);
if (!Number.isInteger(drainDelayMs) || drainDelayMs < 0 || drainDelayMs > 60_000) {
  console.error('SHUTDOWN_DRAIN_DELAY_MS: must be a whole number of milliseconds from 0 to 60000');
  process.exit(1);
}

/** The tunnel registered by lib/observability/lifecycle.ts, given Node's request as it is. */
async function answerTunnel(tunnel, request, response) {
  const answer = await tunnel({
    url: request.url ?? '/',
    headers: {
      get(name) {
        const value = request.headers[name];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    body: request,
  });
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(Buffer.from(await answer.arrayBuffer()));
}

// The config as the build resolved it, the way Next's own standalone server starts. Otherwise Next
// evaluates next.config.ts again at start-up, and with it the build tooling it imports (Sentry's
// bundler plugins): 60 MB of memory and half a second spent on nothing the server uses.
const distDir = process.env.NEXT_DIST_DIR ?? '.next';
const buildManifest = join(distDir, 'required-server-files.json');
if (!existsSync(buildManifest)) {
  console.error(`No production build in ${distDir}: run \`npm run build\` first.`);
  process.exit(1);
}
const { config } = JSON.parse(readFileSync(buildManifest, 'utf8'));
process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);

const app = next({ dev: false, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();
// In production Next runs the instrumentation hook at the first request. Run it before listening,
// so that request already has what the hook sets up: Sentry, the tunnel, each page's policy. This
// is the module and promise Next itself uses, so the hook still runs once.
const {
  ensureInstrumentationRegistered,
} = require('next/dist/server/lib/router-utils/instrumentation-globals.external.js');
await ensureInstrumentationRegistered(process.cwd(), distDir);
// Set by the hook (lib/security/page-policies.ts). Without it every page would go out with no
// Content-Security-Policy at all: better not to serve.
const policyFor = globalThis[Symbol.for('app.security.csp')];
if (typeof policyFor !== 'function') {
  console.error('No Content-Security-Policy was set up by the instrumentation hook; not serving without one.');
  process.exit(1);
}

/**
 * Each page's Content-Security-Policy, from lib/security/content-security-policy.ts: a prerendered
 * page's script hashes, or a fresh nonce. Next reads the nonce from the request's own CSP header
 * and writes it onto every script it renders, so that header is ours alone, never the client's.
 */
function setContentSecurityPolicy(request, response) {
  delete request.headers['content-security-policy'];
  delete request.headers['content-security-policy-report-only'];
  const { policy, nonce } = policyFor(request.url ?? '/', request.method ?? 'GET', request.headers.cookie);
  response.setHeader('content-security-policy', policy);
  if (nonce !== undefined) request.headers['content-security-policy'] = policy;
}

// Next's router reads these on its own requests (RSC fetches and server actions): the deployment
// id (version skew), stale time, postponed and rewrite markers, action outcomes.
// `x-nextjs-cache` (HIT, MISS) it never reads; on a document no script can read any of them.
// Every response passes through writeHead (Node calls it for an implicit head too). Whether the
// request is the router's is noted as it arrives: Next removes its `rsc` header while handling it.
class TrimmedResponse extends ServerResponse {
  isRouterRequest = false;

  writeHead(...args) {
    for (const name of this.getHeaderNames()) {
      if (name.startsWith('x-nextjs-') && (!this.isRouterRequest || name === 'x-nextjs-cache')) this.removeHeader(name);
    }
    return super.writeHead(...args);
  }
}

let isShuttingDown = false;
const server = createServer({ ServerResponse: TrimmedResponse }, (request, response) => {
  request.headers[CLIENT_SOCKET_HEADER] = request.socket.remoteAddress ?? '';
  if (isShuttingDown) {
    response.setHeader('connection', 'close');
  }
  const tunnel = globalThis[Symbol.for('app.lifecycle.tunnel')];
  if (tunnel && request.method === 'POST' && request.url?.split('?')[0] === TUNNEL_PATH) {
    answerTunnel(tunnel, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(400);
      response.end();
    });
    return;
  }
  setContentSecurityPolicy(request, response);
  response.isRouterRequest = request.headers.rsc === '1' || request.headers['next-action'] !== undefined;
  // Scope data a request sets (Sentry.setUser, setTag, breadcrumbs) stays with that request's
  // events. With tracing, the SDK's Http integration does this too; this is its cheap part.
  void withIsolationScope(() => handle(request, response));
});

// A port already taken would otherwise leave a process up that serves nothing.
function exitUnlistened(error) {
  console.error(`Cannot listen on ${hostname}:${port}: ${error.message}`);
  process.exit(1);
}
server.once('error', exitUnlistened);
server.listen(port, hostname, () => {
  server.off('error', exitUnlistened);
  console.log(`▲ Ready on http://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${port}`);
});

async function shutDown(signal) {
  if (isShuttingDown) return;
  isShuttingDown = true;
  // Read by /api/ready (lib/server/health.ts).
  globalThis[Symbol.for('app.lifecycle.draining')] = true;
  console.log(`${signal}: draining requests, then flushing error reports`);
  setTimeout(() => {
    console.error('Shutdown took too long; exiting');
    process.exit(1);
  }, drainDelayMs + SHUTDOWN_TIMEOUT_MS).unref();
  await new Promise((resolve) => setTimeout(resolve, drainDelayMs));

  const closed = new Promise((resolve) => server.close(resolve));
  // Keep-alive connections would hold close() open: drop each as soon as it falls idle.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  await closed;
  clearInterval(idleSweep);

  await globalThis[Symbol.for('app.lifecycle.shutdown')]?.(FLUSH_TIMEOUT_MS);
  process.exit(0);
}

process.on('SIGTERM', () => void shutDown('SIGTERM'));
process.on('SIGINT', () => void shutDown('SIGINT'));
