import { context, ROOT_CONTEXT, TraceFlags, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { getCurrentScope, withIsolationScope } from '@sentry/core';
import { type LocalTrace, LocalTraces } from '@/lib/observability/local-traces';

const sent: LocalTrace[] = [];
let tracer: Tracer;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  tracer = new BasicTracerProvider({ spanProcessors: [new LocalTraces((local) => sent.push(local))] }).getTracer('t');
});
afterAll(() => context.disable());
beforeEach(() => {
  sent.length = 0;
});

const shape = () => sent.map(({ root, spans }) => [root.name, spans.map((span) => span.name)]);

/** A request as Next traces it: a root with a render span under it. */
function request(name: string, parent = context.active()) {
  return context.with(parent, () =>
    tracer.startActiveSpan(name, (root) => ({ root, render: tracer.startSpan(`render ${name}`) })),
  );
}

describe('LocalTraces', () => {
  it('hands on a request whole when its root ends: the root and every span that ended under it', () => {
    const { root, render } = request('GET /status');
    render.end();
    expect(sent).toEqual([]);
    root.end();
    expect(shape()).toEqual([['GET /status', ['render GET /status']]]);
  });

  it('drops a span that ends after its root, as the SDK drops one that ends after its transaction', () => {
    const { root, render } = request('GET /about');
    root.end();
    render.end();
    expect(shape()).toEqual([['GET /about', []]]);
  });

  it("keeps two requests of one trace apart (a page's parallel fetches)", () => {
    const caller = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0123456789abcdef0123456789abcdef',
      spanId: '0123456789abcdef',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    const first = request('GET /a', caller);
    const second = request('GET /b', caller);
    expect(second.root.spanContext().traceId).toBe(first.root.spanContext().traceId);
    second.render.end();
    first.render.end();
    first.root.end();
    second.root.end();
    expect(shape()).toEqual([
      ['GET /a', ['render GET /a']],
      ['GET /b', ['render GET /b']],
    ]);
  });

  it("keeps the Sentry scopes the root started in: the request's", () =>
    withIsolationScope((isolationScope) => {
      const { root, render } = request('GET /status');
      render.end();
      root.end();
      expect(sent[0]?.isolationScope).toBe(isolationScope);
      expect(sent[0]?.scope).toBe(getCurrentScope());
    }));

  /** A tracer whose LocalTraces holds at most `caps`, counting the requests it gives up. */
  function boundedTracer(caps: { maxOpenTraces?: number; maxOpenSpans?: number }) {
    const given = { up: 0 };
    const tracer = new BasicTracerProvider({
      spanProcessors: [
        new LocalTraces(
          (local) => sent.push(local),
          () => given.up++,
          caps,
        ),
      ],
    }).getTracer('bounded');
    return { tracer, given };
  }

  it('gives up the oldest open request once more spans are open than it holds, and reports it', () => {
    const { tracer: bounded, given } = boundedTracer({ maxOpenSpans: 3 });
    const stuck = bounded.startSpan('GET /stuck');
    const root = bounded.startSpan('GET /status');
    const render = bounded.startSpan('render', {}, trace.setSpan(ROOT_CONTEXT, root));
    expect(given.up).toBe(0);
    const next = bounded.startSpan('GET /about');
    expect(given.up).toBe(1);
    for (const span of [render, root, next, stuck]) span.end();
    expect(shape()).toEqual([
      ['GET /status', ['render']],
      ['GET /about', []],
    ]);
  });

  it('gives up the oldest open request once more requests are open than it holds, and keeps none of its spans', () => {
    const { tracer: bounded, given } = boundedTracer({ maxOpenTraces: 1 });
    const stuck = bounded.startSpan('GET /stuck');
    const early = bounded.startSpan('early', {}, trace.setSpan(ROOT_CONTEXT, stuck));
    const root = bounded.startSpan('GET /status');
    expect(given.up).toBe(1);
    const late = bounded.startSpan('late', {}, trace.setSpan(ROOT_CONTEXT, stuck));
    for (const span of [early, late, stuck, root]) span.end();
    expect(shape()).toEqual([['GET /status', []]]);
  });
});
