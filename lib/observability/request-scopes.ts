import 'server-only';
import { context } from '@opentelemetry/api';
import { isTracingSuppressed, suppressTracing } from '@opentelemetry/core';
import {
  type AsyncContextStrategy,
  getAsyncContextStrategy,
  getDefaultCurrentScope,
  getDefaultIsolationScope,
  getMainCarrier,
  isContinuingTrace,
  type PropagationContext,
  type Scope,
  setAsyncContextStrategy,
} from '@sentry/core';
import { replaceAsyncContextStrategy } from '@/lib/framework-internals.mjs';
import { randomSpanId, randomUuidHex } from '@/lib/observability/random-ids';
import {
  currentScopes,
  isTracingSuppressedNow,
  requestContextStorage,
  runWithScopes,
  runWithTracingSuppressed,
  type ScopePair,
} from '@/lib/server/seam.mjs';

const processScopes = (): ScopePair => ({
  scope: getDefaultCurrentScope(),
  isolationScope: getDefaultIsolationScope(),
});

/** The scopes of the work in progress: its request's, or the process's outside any. */
function scopesNow(): Readonly<ScopePair> {
  return currentScopes() ?? processScopes();
}

/**
 * A trace of its own for a unit of work that continues none: a fresh id and random number, and the
 * span id its trace headers name while no span of its own is active.
 */
export function freshTrace(): PropagationContext {
  return { traceId: randomUuidHex(), sampleRand: Math.random(), propagationSpanId: randomSpanId() };
}

/**
 * A fork of `parent`'s current scope for a unit of work of its own, in `trace` when one was decided
 * for it, else in a trace of its own. A fork may now happen inside Next's render, where Next counts
 * `Math.random()` as I/O under `cacheComponents`, which next.config.ts leaves off.
 */
function forkScope(parent: Scope, trace?: PropagationContext): Scope {
  const scope = parent.clone();
  if (trace !== undefined) {
    scope.setPropagationContext(trace);
  } else if (!isContinuingTrace(scope.getPropagationContext())) {
    scope.setPropagationContext(freshTrace());
  }
  return scope;
}

/**
 * A request's scopes, each forked from the scopes the request began in the first time anything
 * reads it. Most requests never do (a page that renders, an asset): they pay no clone. Whatever a
 * request sets lands on its own forks, never on another's. A fork copies the process's scopes as they are when it is made, not as the request arrived: data
 * set on the process's scopes meanwhile (outside any request) reaches the request too. Anything
 * that reads a scope forks it, `getClient()` and `addBreadcrumb` included. The memo is per request,
 * so first reads in parallel branches of one request get the same fork.
 */
class ScopesForkedOnRead implements ScopePair {
  readonly #parent: Readonly<ScopePair>;
  readonly #trace: PropagationContext | undefined;
  #scope: Scope | undefined;
  #isolationScope: Scope | undefined;

  constructor(parent: Readonly<ScopePair>, trace: PropagationContext | undefined) {
    this.#parent = parent;
    this.#trace = trace;
  }

  get scope(): Scope {
    this.#scope ??= forkScope(this.#parent.scope, this.#trace);
    return this.#scope;
  }

  get isolationScope(): Scope {
    this.#isolationScope ??= this.#parent.isolationScope.clone();
    return this.#isolationScope;
  }

  /** The current scope's propagation context, without forking it: the trace it starts in until then. */
  get propagationContext(): PropagationContext | undefined {
    return this.#scope?.getPropagationContext() ?? this.#trace;
  }
}

/**
 * The propagation context of the request in progress, read without forking its scope (a clone,
 * which reading trace headers for every page would otherwise pay): its forked scope's once read,
 * else the trace decided for it as it arrived. Undefined anywhere else: read the scope then.
 */
export function requestPropagationContext(): PropagationContext | undefined {
  const scopes = currentScopes();
  return scopes instanceof ScopesForkedOnRead ? scopes.propagationContext : undefined;
}

/**
 * Runs one request's work with scopes of its own, as the SDK's `withIsolationScope` would, but
 * forked only when read (ScopesForkedOnRead), its current scope in `trace` when the request's trace
 * was decided as it arrived (lib/observability/request-tracing.ts). Only with
 * startRequestScopes()'s strategy in place: the SDK's own would not look for them.
 */
export function withRequestScopes<T>(work: () => T, trace?: PropagationContext): T {
  return runWithScopes(new ScopesForkedOnRead(scopesNow(), trace), work);
}

/**
 * Sentry's scopes kept in the request context server.mjs opens for each request
 * (lib/server/seam.mjs), rather than in an AsyncLocalStorage of the SDK's own: one store less for
 * every promise the process makes, and a request's scopes forked only when read
 * (withRequestScopes). Otherwise the SDK's Node strategy (`@sentry/server-utils`'
 * `async-context.js`): `withScope` forks the current scope, `withIsolationScope` both, with a
 * fresh trace unless one is continued, and channel bindings get the store. Under `next dev`,
 * where no server.mjs opens a request context, every request reads the process's scopes, as it did
 * before. Call it after `Sentry.init`, which sets the SDK's (lib/server/app-server.ts does).
 * Throws a FrameworkShapeError when the SDK's strategy has a member this one does not handle.
 */
export function startRequestScopes(): void {
  const strategy: AsyncContextStrategy = {
    getCurrentScope: () => scopesNow().scope,
    getIsolationScope: () => scopesNow().isolationScope,
    withScope: (callback) => {
      const { scope, isolationScope } = scopesNow();
      const forked = scope.clone();
      return runWithScopes({ scope: forked, isolationScope }, () => callback(forked));
    },
    withSetScope: (scope, callback) =>
      runWithScopes({ scope, isolationScope: scopesNow().isolationScope }, () => callback(scope)),
    withIsolationScope: (callback) => {
      const parent = scopesNow();
      const isolationScope = parent.isolationScope.clone();
      return runWithScopes({ scope: forkScope(parent.scope), isolationScope }, () => callback(isolationScope));
    },
    withSetIsolationScope: (isolationScope, callback) =>
      runWithScopes({ scope: scopesNow().scope.clone(), isolationScope }, () => callback(isolationScope)),
    // `Sentry.suppressTracing` (which the server's transport sends in too) without the scope fork of the
    // SDK's fallback, marked in the same store, and in OpenTelemetry's context, where the server's
    // tracer and instrumentations look (lib/observability/server-tracing.ts). With no context
    // manager registered (no tracing), that second mark is a no-op.
    suppressTracing: (callback) =>
      context.with(suppressTracing(context.active()), () => runWithTracingSuppressed(callback)),
    isTracingSuppressed: () => isTracingSuppressedNow() || isTracingSuppressed(context.active()),
    // What Sentry's channel-based integrations bind their channels to: the same store, so their
    // subscribers see the request's scopes.
    getTracingChannelBinding: () => ({ asyncLocalStorage: requestContextStorage() }),
  };
  // Handed in: lib/framework-internals.mjs imports nothing (server.mjs loads it before anything is
  // compiled), and it alone may call this private setter.
  replaceAsyncContextStrategy(setAsyncContextStrategy, getAsyncContextStrategy(getMainCarrier()), strategy);
}
