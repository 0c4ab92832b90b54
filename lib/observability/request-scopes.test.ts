import {
  type BaseTransportOptions,
  createTransport,
  type Event,
  getAsyncContextStrategy,
  getDefaultCurrentScope,
  getDefaultIsolationScope,
  getMainCarrier,
  isTracingSuppressed,
  waitForTracingChannelBinding,
} from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { CallerSamplingBudget } from '@/lib/observability/caller-sampling-budget';
import { startRequestScopes, withRequestScopes } from '@/lib/observability/request-scopes';
import { isolateRequest, traceIfSampled } from '@/lib/observability/request-tracing';
import { currentScopes, isRequestDecided, requestClientAddress, runWithClientAddress } from '@/lib/server/seam.mjs';

const events: Event[] = [];

beforeAll(() => {
  Sentry.init({
    dsn: 'http://key@127.0.0.1:9/1',
    defaultIntegrations: false,
    // As sentry.server.config.ts inits it: the SDK's own strategy is its AsyncLocalStorage one.
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    beforeSend: (event) => {
      events.push(event);
      return null;
    },
    transport: (options: BaseTransportOptions) => createTransport(options, async () => ({})),
  });
  startRequestScopes();
});
afterAll(() => Sentry.close());
beforeEach(() => {
  events.length = 0;
});

/** One request as server.mjs hands it over: its own context, then its own scopes. */
const asRequest = <T>(work: () => T) => runWithClientAddress('127.0.0.1', () => withRequestScopes(work));
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('scopes for each request, forked when read', () => {
  it("keeps what one request sets off another request's events, however their work interleaves", async () => {
    const labels = Array.from({ length: 6 }, (_, index) => `request-${index}`);
    await Promise.all(
      labels.map((label) =>
        asRequest(async () => {
          await tick();
          Sentry.setTag('label', label);
          Sentry.setUser({ id: label });
          await tick();
          Sentry.captureException(new Error(label));
        }),
      ),
    );
    expect(events).toHaveLength(labels.length);
    for (const event of events) {
      const label = event.exception?.values?.[0]?.value;
      expect(event.tags?.label).toBe(label);
      expect(event.user?.id).toBe(label);
    }
    expect(getDefaultIsolationScope().getScopeData().tags.label).toBeUndefined();
  });

  it('forks nothing for a request that never reads its scopes, and each scope once for one that does', async () => {
    const clone = vi.spyOn(Sentry.Scope.prototype, 'clone');
    try {
      await asRequest(async () => {
        await tick();
      });
      expect(clone).not.toHaveBeenCalled();

      await asRequest(async () => {
        Sentry.setTag('read', 'yes');
        await tick();
        Sentry.getIsolationScope();
        Sentry.getCurrentScope();
        Sentry.getCurrentScope();
      });
      expect(clone).toHaveBeenCalledTimes(2);
    } finally {
      clone.mockRestore();
    }
  });

  it("runs a health probe in its caller's trace, unsampled whatever the caller decided", async () => {
    const callerTrace = '1123456789abcdef0123456789abcdef';
    const sampled = { 'sentry-trace': `${callerTrace}-0123456789abcdef-1` };
    const propagation = await runWithClientAddress('127.0.0.1', () =>
      isolateRequest(
        { url: '/api/health', headers: sampled },
        0.1,
        Sentry.getClient(),
        async () => {
          await tick();
          return Sentry.getCurrentScope().getPropagationContext();
        },
        new CallerSamplingBudget(0.1),
      ),
    );
    expect(propagation).toMatchObject({ traceId: callerTrace, parentSpanId: '0123456789abcdef', sampled: false });
  });

  it('decides a traced request as it arrives without forking its scopes, which start in the decided trace when read', async () => {
    const client = Sentry.getClient();
    const callerTrace = '0123456789abcdef0123456789abcdef';
    const unsampled = { 'sentry-trace': `${callerTrace}-0123456789abcdef-0` };
    const asDecidedRequest = <T>(work: () => T) =>
      runWithClientAddress('127.0.0.1', () => traceIfSampled(unsampled, 0.1, client, work));
    const processTrace = { ...getDefaultCurrentScope().getPropagationContext() };
    const clone = vi.spyOn(Sentry.Scope.prototype, 'clone');
    try {
      await asDecidedRequest(async () => {
        await tick();
      });
      expect(clone).not.toHaveBeenCalled();
      // Nor was the decision written where every request would read it.
      expect(getDefaultCurrentScope().getPropagationContext()).toEqual(processTrace);

      const propagation = await asDecidedRequest(async () => {
        await tick();
        return Sentry.getCurrentScope().getPropagationContext();
      });
      expect(propagation).toMatchObject({ traceId: callerTrace, parentSpanId: '0123456789abcdef', sampled: false });
      expect(clone).toHaveBeenCalledTimes(1);
    } finally {
      clone.mockRestore();
    }
  });

  it("gives each request a trace of its own, and keeps a continued caller's trace", async () => {
    const traceIds = await Promise.all(
      [1, 2].map(() => asRequest(() => Sentry.getCurrentScope().getPropagationContext().traceId)),
    );
    expect(traceIds[0]).not.toBe(traceIds[1]);
    expect(traceIds[0]).toMatch(/^[0-9a-f]{32}$/);

    const callerTrace = '0123456789abcdef0123456789abcdef';
    const continued = Sentry.withScope((scope) => {
      scope.setPropagationContext({ traceId: callerTrace, parentSpanId: '0123456789abcdef', sampleRand: 0.5 });
      return withRequestScopes(() => Sentry.getCurrentScope().getPropagationContext().traceId);
    });
    expect(continued).toBe(callerTrace);
  });

  it("keeps the scopes in server.mjs's request context, which stays the request's", async () => {
    await asRequest(async () => {
      Sentry.withScope((scope) => {
        expect(currentScopes()?.scope).toBe(scope);
        expect(requestClientAddress()).toBe('127.0.0.1');
        expect(isRequestDecided()).toBe(true);
      });
      await Sentry.withIsolationScope(async (isolationScope) => {
        await tick();
        expect(Sentry.getIsolationScope()).toBe(isolationScope);
        expect(requestClientAddress()).toBe('127.0.0.1');
      });
    });
    // Scopes set outside any request make no request of it.
    Sentry.withScope(() => {
      expect(currentScopes()).toBeDefined();
      expect(isRequestDecided()).toBe(false);
      expect(requestClientAddress()).toBeUndefined();
    });
  });

  it('gives first reads in parallel branches of one request the same forks', async () => {
    const [first, second] = await asRequest(() =>
      Promise.all(
        [1, 2].map(async () => {
          await tick();
          return [Sentry.getCurrentScope(), Sentry.getIsolationScope()];
        }),
      ),
    );
    expect(second?.[0]).toBe(first?.[0]);
    expect(second?.[1]).toBe(first?.[1]);
  });

  it('runs work with the scopes it is given, in the request it belongs to', async () => {
    await asRequest(async () => {
      const scope = new Sentry.Scope();
      const isolationScope = new Sentry.Scope();
      Sentry.withScope((forked) => {
        getAsyncContextStrategy(getMainCarrier()).withSetScope(scope, () => {
          expect(Sentry.getCurrentScope()).toBe(scope);
          expect(Sentry.getIsolationScope()).toBe(currentScopes()?.isolationScope);
          expect(forked).not.toBe(scope);
        });
      });
      await Sentry.withIsolationScope(async () => {
        await tick();
        return getAsyncContextStrategy(getMainCarrier()).withSetIsolationScope(isolationScope, async () => {
          await tick();
          expect(Sentry.getIsolationScope()).toBe(isolationScope);
          expect(requestClientAddress()).toBe('127.0.0.1');
        });
      });
    });
  });

  it('suppresses tracing for the work Sentry.suppressTracing runs, and for nothing after it, without forking a scope', async () => {
    await asRequest(async () => {
      expect(isTracingSuppressed()).toBe(false);
      const inside = await Sentry.suppressTracing(async () => {
        await tick();
        return isTracingSuppressed();
      });
      expect(inside).toBe(true);
      expect(isTracingSuppressed()).toBe(false);
    });
    await asRequest(async () => expect(isTracingSuppressed()).toBe(false));

    const clone = vi.spyOn(Sentry.Scope.prototype, 'clone');
    try {
      await asRequest(() => Sentry.suppressTracing(tick));
      expect(clone).not.toHaveBeenCalled();
    } finally {
      clone.mockRestore();
    }
  });

  it("binds Sentry's tracing channels to the request's store, so their subscribers see its scopes", async () => {
    const bound = vi.fn();
    waitForTracingChannelBinding(bound);
    expect(bound).toHaveBeenCalledOnce();
    const storage = getAsyncContextStrategy(getMainCarrier()).getTracingChannelBinding?.()?.asyncLocalStorage as
      | { getStore(): unknown }
      | undefined;
    expect(storage).toBeDefined();
    await asRequest(async () => {
      Sentry.setTag('label', 'bound');
      await tick();
      const store = storage?.getStore();
      expect(store).toMatchObject({ clientAddress: '127.0.0.1' });
      expect((store as { scopes: { isolationScope: Sentry.Scope } }).scopes.isolationScope).toBe(
        Sentry.getIsolationScope(),
      );
    });
  });
});
