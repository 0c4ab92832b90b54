// @ts-check
// `npm start`: Next's production server, with a shutdown that loses nothing. On SIGTERM or SIGINT
// it answers 503 on /api/ready for SHUTDOWN_DRAIN_DELAY_MS, then stops accepting connections, lets
// requests in flight finish (closing what is still open after DRAIN_TIMEOUT_MS), flushes pending
// Sentry events and stops the tunnel's spool, then exits 0 (1 only when an error on its way could
// neither go out nor be kept), all within SHUTDOWN_TIMEOUT_MS after the delay. (`next start` exits 143 without flushing.)
// Plain JavaScript because it runs before anything is compiled (type-checked all the same); PORT,
// HOSTNAME, the drain delay and the build's folder come from lib/server/server-env.mjs. It talks to the app
// only through lib/server/seam.mjs, and knows Next's internals only through lib/framework-internals.mjs.
import { existsSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  BUILD_CONFIG_FILE,
  buildConfigFrom,
  FrameworkShapeError,
  hasStaticFileConditions,
  nextServerPrepared,
  notFoundInsteadOfGlobalError,
  STANDALONE_CONFIG_VARIABLE,
  STATIC_FILE_METHODS,
  staticFilePathOf,
  staticFileRefusal,
  withoutNextUpgrades,
} from './lib/framework-internals.mjs';
import { appServer, markDraining, runWithClientAddress } from './lib/server/seam.mjs';
import { readServerEnv } from './lib/server/server-env.mjs';
import { loadEnvFiles } from './scripts/project-env.mjs';

/** @typedef {import('./lib/server/seam.mjs').AppServer} AppServer */

// The .env and .env.production `next build` copied into this folder, read as Next's own server reads
// them, but before the variables below are (`npm start` has read the project's already: no-op).
loadEnvFiles(process.cwd());

/** @type {ReturnType<typeof readServerEnv>} */
let serverEnv;
try {
  serverEnv = readServerEnv(process.env);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
// After SIGTERM, the server goes on serving for drainDelayMs while /api/ready answers 503, so a
// load balancer that polls readiness stops routing here before the listener closes (0: at once).
const { port, hostname, drainDelayMs, distDir } = serverEnv;
// After SIGTERM and the drain delay: up to DRAIN_TIMEOUT_MS for requests in flight, then up to
// FLUSH_TIMEOUT_MS to send pending events; SHUTDOWN_TIMEOUT_MS bounds both, whatever happens.
const DRAIN_TIMEOUT_MS = 5_000;
const FLUSH_TIMEOUT_MS = 2_000;
const SHUTDOWN_TIMEOUT_MS = 10_000;
// How long Next may take to run the instrumentation hook before the server gives up, rather than
// hang.
const HOOK_TIMEOUT_MS = 30_000;
// How long an answer may wait on a client that takes none of it (see closeIfStalled). Node checks
// a write still pending once more before it calls the connection quiet: 30 to 60 s in all, the
// 60 s of nginx's `send_timeout` at most, for a phone on a link that stalls a while.
const SEND_TIMEOUT_MS = 30_000;

/**
 * What `work` settled with, or `fallback` when it has not settled within `timeoutMs`.
 * @template T, F
 * @param {Promise<T>} work
 * @param {number} timeoutMs
 * @param {F} fallback
 * @returns {Promise<T | F>}
 */
function settledWithin(work, timeoutMs, fallback) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  /** @type {Promise<F>} */
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(resolve, timeoutMs, fallback);
  });
  return Promise.race([work, timedOut]).finally(() => clearTimeout(timer));
}

/**
 * @param {string} message
 * @returns {never}
 */
function refuseToStart(message) {
  console.error(message);
  process.exit(1);
}

// The config as the build resolved it, the way Next's own standalone server starts. Otherwise Next
// evaluates next.config.ts again at start-up, and with it the build tooling it imports.
const buildConfigPath = join(distDir, BUILD_CONFIG_FILE);
if (!existsSync(buildConfigPath)) {
  refuseToStart(`No production build in ${distDir}: run \`npm run build\` first.`);
}
try {
  const config = buildConfigFrom(JSON.parse(readFileSync(buildConfigPath, 'utf8')), distDir);
  process.env[STANDALONE_CONFIG_VARIABLE] = JSON.stringify(config);
} catch (error) {
  refuseToStart(String(error));
}

// Required, not imported: Node first parses a CommonJS package an ES module imports for its named
// exports, which cost every start (docs/performance.md).
/** @type {typeof import('next').default} */
const next = createRequire(import.meta.url)('next');
// Upgrade requests are server.mjs's to answer, as any other request (lib/framework-internals.mjs).
const nextApp = next(withoutNextUpgrades({ dev: false, hostname, port }, createServer()));
await nextApp.prepare();
const handle = nextApp.getRequestHandler();

/**
 * What a failure to set up Next's server says: a changed framework shape says all in its message;
 * for a hook module that failed as it loaded, Next's error holds what it threw as its cause.
 * @param {unknown} error
 */
function startUpFailure(error) {
  if (!(error instanceof Error)) return `Next could not set up its server: ${error}; not serving.`;
  if (error instanceof FrameworkShapeError) return error.message;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `Next could not set up its server: ${error.message}${cause}; not serving.`;
}

/**
 * Next runs the instrumentation hook (Sentry, the tunnel, each page's policy) as it prepares the
 * server that renders, and answers no request before. Listening only once that is done makes sure
 * the first visitor's request finds all of it in place, and a server whose hook failed, or never
 * set the app up, never listens.
 * @returns {Promise<{ app: AppServer, policyFor: NonNullable<AppServer['policyFor']> }>}
 */
async function receiveAppServer() {
  const isPrepared = await settledWithin(
    nextServerPrepared(nextApp).then(() => true),
    HOOK_TIMEOUT_MS,
    false,
  ).catch((/** @type {unknown} */ error) => refuseToStart(startUpFailure(error)));
  if (!isPrepared) {
    return refuseToStart(`The instrumentation hook did not finish within ${HOOK_TIMEOUT_MS} ms; not serving.`);
  }
  const app = appServer();
  if (app === undefined) {
    return refuseToStart('The instrumentation hook did not set up the app (lib/server/seam.mjs); not serving.');
  }
  // Without it every page would go out with no Content-Security-Policy at all.
  if (app.policyFor === undefined) {
    return refuseToStart('No Content-Security-Policy was set up by the instrumentation hook; not serving without one.');
  }
  return { app, policyFor: app.policyFor };
}

const { app, policyFor } = await receiveAppServer();

/**
 * The tunnel, given Node's request as it is: turning it into a web Request cost throughput
 * (docs/reliability.md).
 * @param {import('node:http').IncomingMessage} request
 * @param {import('node:http').ServerResponse} response
 */
async function answerTunnel(request, response) {
  await send(
    response,
    await app.handleTunnel({
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      headers: {
        get(name) {
          const value = request.headers[name];
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
        },
      },
      body: request,
    }),
  );
}

/**
 * Writes an answer the app made to Node's response.
 * @param {import('node:http').ServerResponse} response
 * @param {Response} answer
 */
async function send(response, answer) {
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(Buffer.from(await answer.arrayBuffer()));
}

// The methods Next's route handlers take. For any other (TRACE, WebDAV's) Next throws, answers 500
// and logs a stack.
const NEXT_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH'];

/**
 * Each page's Content-Security-Policy, from lib/security/content-security-policy.ts: a prerendered
 * page's script hashes, or a fresh nonce. Next reads the nonce from the request's own CSP header
 * and writes it onto every script it renders, so that header is ours alone, never the client's.
 * @param {import('node:http').IncomingMessage} request
 * @param {import('node:http').ServerResponse} response
 */
function setContentSecurityPolicy(request, response) {
  delete request.headers['content-security-policy'];
  delete request.headers['content-security-policy-report-only'];
  const { policy, nonce } = policyFor(request.url ?? '/', request.method ?? 'GET', request.headers.cookie);
  response.setHeader('content-security-policy', policy);
  if (nonce !== undefined) request.headers['content-security-policy'] = policy;
}

const STATIC_FILE_REFUSALS = {
  405: `Method not allowed: a static file takes ${STATIC_FILE_METHODS.join(' and ')}`,
  412: 'Precondition failed: the file is not the one the request names',
  416: 'Range not satisfiable',
};

/**
 * What Next's static file server would refuse a request for one of its files with (405 for another
 * method than GET and HEAD, 412, 416), which Next then answers as a 500
 * (lib/framework-internals.mjs); undefined for anything else.
 * @param {import('node:http').IncomingMessage} request
 * @returns {Promise<{ status: 405 | 412 | 416, headers: Record<string, string> } | undefined>}
 */
async function staticFileRefusalOf(request) {
  const path = staticFilePathOf(request.url ?? '/', distDir);
  if (path === undefined) return undefined;
  const file = await stat(path).catch(() => undefined);
  if (!file?.isFile()) return undefined;
  if (!STATIC_FILE_METHODS.includes(request.method ?? '')) {
    return { status: 405, headers: { allow: STATIC_FILE_METHODS.join(', ') } };
  }
  return staticFileRefusal(request.headers, file);
}

/**
 * A request for Next, with its page's policy, in scopes of its own.
 * @param {import('node:http').IncomingMessage} request
 * @param {import('node:http').ServerResponse} response
 */
function handleWithNext(request, response) {
  // Next would render its error screen's own route as a page and answer 500: the not-found page,
  // as `next dev` answers it.
  const notFound = notFoundInsteadOfGlobalError(request.url ?? '/');
  if (notFound !== undefined) request.url = notFound;
  setContentSecurityPolicy(request, response);
  // Scope data a request sets (Sentry.setUser, setTag, breadcrumbs) stays with that request's
  // events, and with tracing its trace is decided as it arrives, once (lib/observability/request-tracing.ts).
  void app.isolate(request, () => handle(request, response));
}

/**
 * Whether a request's target is one Next can route, made so where HTTP/1.1 asks: an absolute-form
 * target (`GET http://host/path`, RFC 9112 3.2.2) is read as its path, on the host it names (Next
 * answered it with a redirect to that host). False for the rest Node's parser lets through (`*`, a
 * URL of another scheme), which Next answers with 500 and a stack.
 * @param {import('node:http').IncomingMessage} request
 */
function hasRoutableTarget(request) {
  const target = request.url ?? '';
  if (target.startsWith('/')) return true;
  if (!/^https?:\/\//i.test(target)) return false;
  try {
    const url = new URL(target);
    request.url = `${url.pathname}${url.search}`;
    request.headers.host = url.host;
    return true;
  } catch {
    return false;
  }
}

/**
 * Node gives an answer no time limit: a client that stops reading (on purpose, or gone without a
 * word) would hold its connection, and the answer's rest in memory, for good, and enough of them
 * every connection the host can open. Called when a connection has been quiet for SEND_TIMEOUT_MS
 * while a request was on it: closed if bytes of the answer are waiting on the client, as nginx's
 * `send_timeout` does; left alone if the answer is still being worked on (nothing waits to go out).
 * @this {import('node:http').ServerResponse}
 */
function closeIfStalled() {
  if ((this.socket?.writableLength ?? 0) > 0) this.socket?.destroy();
}

// HTTP/1.1 lets a client send requests ahead on one connection (pipelining), each answered in its
// turn. Node starts every one it has read at once, and pauses reading only once answers wait to go
// out, which renders still running do not: a few kilobytes of requests start as many renders,
// each held in memory until its turn (docs/reliability.md). No browser pipelines.
const MAX_QUEUED_PER_CONNECTION = 64;
/**
 * Each connection's requests behind the first still unanswered; Infinity once one was refused.
 * @type {WeakMap<import('node:net').Socket, number>}
 */
const queuedRequests = new WeakMap();

/**
 * Counts a request that waits behind another answer on its connection, and says whether the
 * connection may queue it. Node gives a response its connection once the answers before it are
 * done; until then it has none. Once one is refused, so is every later one: the connection closes
 * after the refusal, and nothing rendered for them would be sent.
 * @param {import('node:http').IncomingMessage} request
 * @param {import('node:http').ServerResponse} response
 */
function admitToQueue(request, response) {
  if (response.socket !== null) return true;
  const { socket } = request;
  const queued = (queuedRequests.get(socket) ?? 0) + 1;
  if (queued > MAX_QUEUED_PER_CONNECTION) {
    queuedRequests.set(socket, Number.POSITIVE_INFINITY);
    return false;
  }
  queuedRequests.set(socket, queued);
  response.once('close', () => queuedRequests.set(socket, (queuedRequests.get(socket) ?? 1) - 1));
  return true;
}

let isShuttingDown = false;
// A client gets 10 s for its request's headers and 30 s for the whole request (Node's defaults:
// 60 s and 300 s, long enough for a few hundred slow clients to hold every connection). The tunnel
// and the CSP reports give bodies less (lib/server/read-body.ts). An idle keep-alive connection is
// closed after 5 s: a load balancer that reuses connections must give up on them sooner.
// Node checks those limits every `connectionsCheckingInterval` (30 s by default): every second here.
const server = createServer(
  { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 },
  (request, response) =>
    runWithClientAddress(request.socket.remoteAddress ?? 'unknown', () => {
      // After the answer, Node's keep-alive timeout takes the connection's quiet time over.
      response.setTimeout(SEND_TIMEOUT_MS, closeIfStalled);
      if (isShuttingDown) {
        response.setHeader('connection', 'close');
      }
      if (!admitToQueue(request, response)) {
        response.setHeader('connection', 'close');
        void send(
          response,
          app.refuse(429, `More than ${MAX_QUEUED_PER_CONNECTION} requests wait on this connection`, {
            'retry-after': '1',
          }),
        );
        return;
      }
      if (!hasRoutableTarget(request)) {
        // `OPTIONS *` asks what the server as a whole takes.
        const answer =
          request.url === '*' && request.method === 'OPTIONS'
            ? app.secure(new Response(null, { status: 204, headers: { allow: NEXT_METHODS.join(', ') } }))
            : app.refuse(400, 'Bad request target: expected a path');
        void send(response, answer);
        return;
      }
      if (request.url?.split('?')[0] === app.tunnelPath) {
        answerTunnel(request, response).catch(() => {
          if (!response.headersSent) response.writeHead(400);
          response.end();
        });
        return;
      }
      if (!NEXT_METHODS.includes(request.method ?? '')) {
        void send(
          response,
          app.refuse(405, `Method ${request.method} is not supported`, { allow: NEXT_METHODS.join(', ') }),
        );
        return;
      }
      // Only a request Next's static file server could refuse (router-server's 405, send's 412 and
      // 416) waits for a look at the file.
      if (!STATIC_FILE_METHODS.includes(request.method ?? '') || hasStaticFileConditions(request.headers)) {
        staticFileRefusalOf(request)
          .then((refusal) =>
            refusal === undefined
              ? handleWithNext(request, response)
              : send(response, app.refuse(refusal.status, STATIC_FILE_REFUSALS[refusal.status], refusal.headers)),
          )
          .catch((error) => {
            console.error('Answering a request failed:', error);
            if (!response.headersSent) response.writeHead(500);
            response.end();
          });
        return;
      }
      handleWithNext(request, response);
    }),
);
server.keepAliveTimeout = 5_000;
// CONNECT asks this server to be a proxy, which it is not; without a listener Node drops the
// connection unanswered. Its socket is the listener's now, out of the server's timeouts: it is
// closed once the answer is written, or after a few seconds, whatever the client does.
server.on('connect', (/** @type {import('node:http').IncomingMessage} */ request, socket) => {
  socket.on('error', () => undefined);
  // A TCP socket, as Node hands over every connection of this server.
  /** @type {import('node:net').Socket} */ (socket).setTimeout(5_000, () => socket.destroy());
  const answer = app.refuse(405, `Method ${request.method} is not supported`, { allow: NEXT_METHODS.join(', ') });
  void answer.text().then((body) => {
    const headers = [...answer.headers].map(([name, value]) => `${name}: ${value}`);
    const head = ['HTTP/1.1 405 Method Not Allowed', ...headers, `content-length: ${Buffer.byteLength(body)}`];
    socket.end([...head, 'connection: close', '', body].join('\r\n'), () => socket.destroy());
  });
});

/**
 * A port already taken would otherwise leave a process up that serves nothing.
 * @param {Error} error
 */
function exitUnlistened(error) {
  refuseToStart(`Cannot listen on ${hostname}:${port}: ${error.message}`);
}
server.once('error', exitUnlistened);
server.listen(port, hostname, () => {
  server.off('error', exitUnlistened);
  console.log(`▲ Ready on http://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${port}`);
});

/**
 * Resolves once every request in flight has ended, or after `timeoutMs`, whichever comes first.
 * @param {number} timeoutMs
 */
function closeWithin(timeoutMs) {
  const closed = new Promise((resolve) => server.close(() => resolve(true)));
  // Keep-alive connections would hold close() open: drop each as soon as it falls idle.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  return settledWithin(closed, timeoutMs, false).finally(() => clearInterval(idleSweep));
}

/** @param {string} signal */
async function shutDown(signal) {
  if (isShuttingDown) return;
  isShuttingDown = true;
  markDraining();
  console.log(`${signal}: draining requests, then flushing error reports`);
  setTimeout(() => {
    console.error('Shutdown took too long; exiting');
    process.exit(1);
  }, drainDelayMs + SHUTDOWN_TIMEOUT_MS).unref();
  await new Promise((resolve) => setTimeout(resolve, drainDelayMs));

  // A client that never finishes its request (a stalled upload, a slowloris) must not hold the
  // deploy: after the drain, what is still open is cut. A tunnel upload cut short was never
  // acknowledged, so the browser SDK sends it again, to another instance.
  if (!(await closeWithin(DRAIN_TIMEOUT_MS))) {
    console.log(`Requests still open after ${DRAIN_TIMEOUT_MS} ms: closing their connections`);
    server.closeAllConnections();
  }
  const isFlushed = await app.shutDown(FLUSH_TIMEOUT_MS);
  if (!isFlushed) console.error(`Error reports still pending after ${FLUSH_TIMEOUT_MS} ms were lost`);
  process.exit(isFlushed ? 0 : 1);
}

process.on('SIGTERM', () => void shutDown('SIGTERM'));
process.on('SIGINT', () => void shutDown('SIGINT'));
