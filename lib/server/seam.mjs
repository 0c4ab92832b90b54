// @ts-check
// The one way server.mjs (plain Node, outside Next's bundles) and the app (inside them) talk.
// Next bundles this module into each of its server bundles, and server.mjs loads it from disk:
// each copy is its own module instance, so the state lives in one process-wide slot, owned here
// and nowhere else. Plain JavaScript with types in JSDoc: server.mjs runs before anything is compiled.
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * @typedef {object} TunnelRequest what the tunnel reads of a request: a web Request fits, and so
 *   does Node's IncomingMessage behind a `headers.get`, unconverted
 * @property {string} method
 * @property {string} url
 * @property {{ get(name: string): string | null }} headers
 * @property {AsyncIterable<Uint8Array> | null} body
 */

/**
 * @typedef {object} PagePolicy a response's Content-Security-Policy
 * @property {string} policy
 * @property {string} [nonce] made for this request; Next writes it onto every script it renders
 */

/**
 * @typedef {object} AppServer what the app's instrumentation hook hands server.mjs at start-up
 * @property {string} tunnelPath where the browser posts its envelopes (lib/tunnel/tunnel-path.ts)
 * @property {(request: TunnelRequest) => Promise<Response>} handleTunnel answers any request to the tunnel's path
 * @property {(status: number, reason: string, headers?: Record<string, string>) => Response} refuse a
 *   plain-text refusal with the security headers every response carries, for server.mjs to send
 * @property {(response: Response) => Response} secure gives an answer of server.mjs's own that is not a
 *   refusal (a bodiless 204) the security headers every response carries
 * @property {((url: string, method: string, cookie: string | undefined) => PagePolicy) | undefined} policyFor
 *   each production page's CSP, from the build; undefined under `next dev`
 * @property {<T>(request: Pick<import('node:http').IncomingMessage, 'url' | 'headers'>, work: () => T) => T} isolate
 *   runs one page or route request's work in its own Sentry scopes, deciding once, as it arrives,
 *   whether it is traced
 * @property {() => string | undefined} spoolProblem why the tunnel's spool cannot keep envelopes now
 * @property {(timeoutMs: number) => Promise<boolean>} shutDown flushes pending events and stops the
 *   spool; false when that did not finish in time
 */

/**
 * @typedef {object} ScopePair Sentry's two scopes for the work in progress
 * @property {import('@sentry/core').Scope} scope
 * @property {import('@sentry/core').Scope} isolationScope
 */

/**
 * @typedef {object} RequestContext what the work in progress carries. One store for the process:
 *   every AsyncLocalStorage in use costs each new promise a copy, so Sentry's scopes are kept here
 *   too (lib/observability/request-scopes.ts) rather than in a store of their own.
 * @property {string} [clientAddress] the socket's address, never what the client says of itself;
 *   set for a request server.mjs handed over, and only then
 * @property {boolean} [isTraced] set for a request whose trace will be sampled
 * @property {Readonly<ScopePair>} [scopes] Sentry's scopes; the process's where none are set
 * @property {boolean} [isTracingSuppressed] set for work run under `Sentry.suppressTracing`
 */

/**
 * @typedef {object} SeamState
 * @property {AppServer | undefined} app
 * @property {boolean} isDraining
 * @property {AsyncLocalStorage<RequestContext>} requests
 */

const SLOT = Symbol.for('app.server-seam');
const slots = /** @type {{ [SLOT]?: SeamState }} */ (globalThis);
slots[SLOT] ??= { app: undefined, isDraining: false, requests: new AsyncLocalStorage() };
const state = slots[SLOT];

/** @param {AppServer} app called once, by the instrumentation hook */
export function provideAppServer(app) {
  state.app = app;
}

/** @returns {AppServer | undefined} undefined until the instrumentation hook has run */
export function appServer() {
  return state.app;
}

/** From the moment shutdown begins: readiness answers 503. */
export function markDraining() {
  state.isDraining = true;
}

export function isDraining() {
  return state.isDraining;
}

/**
 * Runs a request's handling with the address of the socket it came on, which the app reads back
 * with requestClientAddress() (per-client limits). Never what the client says of itself. A fresh
 * context, not one spread from the caller's: a request starts from the process's scopes.
 * @template T
 * @param {string} clientAddress
 * @param {() => T} work
 * @returns {T}
 */
export function runWithClientAddress(clientAddress, work) {
  return state.requests.run({ clientAddress }, work);
}

/** @returns {string | undefined} the socket address of the request being handled, under server.mjs */
export function requestClientAddress() {
  return state.requests.getStore()?.clientAddress;
}

/**
 * Runs the rest of a request's handling as a traced one. Only sampled requests enter this second
 * context: an unsampled one costs nothing more than the one it is in.
 * @template T
 * @param {() => T} work
 * @returns {T}
 */
export function runTraced(work) {
  const context = state.requests.getStore();
  // Outside a request everything is traced already (isRequestTraced).
  return context?.clientAddress === undefined ? work() : state.requests.run({ ...context, isTraced: true }, work);
}

/** Whether server.mjs handed this request over, and so decided whether it is traced. */
export function isRequestDecided() {
  return state.requests.getStore()?.clientAddress !== undefined;
}

/**
 * Whether Next should trace what it is handling: under server.mjs, which decides for each request,
 * only a sampled request; where nothing decides (a server other than server.mjs), everything, and
 * the server's sampler decides (lib/observability/server-tracing.ts).
 */
export function isRequestTraced() {
  const context = state.requests.getStore();
  return context?.clientAddress === undefined || context.isTraced === true;
}

/** @returns {Readonly<ScopePair> | undefined} the scopes of the work in progress, if any were set */
export function currentScopes() {
  return state.requests.getStore()?.scopes;
}

/**
 * Runs `work` with `scopes`, in the request it belongs to (if any).
 * @template T
 * @param {Readonly<ScopePair>} scopes
 * @param {() => T} work
 * @returns {T}
 */
export function runWithScopes(scopes, work) {
  return state.requests.run({ ...state.requests.getStore(), scopes }, work);
}

/**
 * Runs `work` with tracing suppressed, in the request it belongs to (if any).
 * @template T
 * @param {() => T} work
 * @returns {T}
 */
export function runWithTracingSuppressed(work) {
  return state.requests.run({ ...state.requests.getStore(), isTracingSuppressed: true }, work);
}

/** Whether the work in progress runs with tracing suppressed (runWithTracingSuppressed). */
export function isTracingSuppressedNow() {
  return state.requests.getStore()?.isTracingSuppressed === true;
}

/**
 * The store itself, for Sentry's binding of diagnostics channels to it: a channel's subscribers then
 * run in the context of the request that published (lib/observability/request-scopes.ts).
 * @returns {AsyncLocalStorage<RequestContext>}
 */
export function requestContextStorage() {
  return state.requests;
}
