import { context, defaultTextMapGetter, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import {
  type BaseTransportOptions,
  type Client,
  createTransport,
  type Envelope,
  type Event,
  parseEnvelope,
} from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { LocalTraces } from '@/lib/observability/local-traces';
import { startRequestScopes } from '@/lib/observability/request-scopes';
import { traceIfSampled } from '@/lib/observability/request-tracing';
import { sharedSentryOptions } from '@/lib/observability/sentry-options';
import { scopeTracePropagator } from '@/lib/observability/span-propagation';
import { sendAsTransactions } from '@/lib/observability/span-transactions';
import { runWithClientAddress } from '@/lib/server/seam.mjs';

const envelopes: Envelope[] = [];
let client: Client;

beforeAll(() => {
  // Errors only, as on the server: the transactions come from OpenTelemetry's spans.
  const shared = sharedSentryOptions({
    dsn: 'http://key@127.0.0.1:9/1',
    environment: 'test',
    release: 'r1',
    tracesSampleRate: 0,
    spotlightUrl: undefined,
  });
  Sentry.init({
    ...shared,
    defaultIntegrations: false,
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    transport: (options: BaseTransportOptions) =>
      createTransport(options, async (request) => {
        envelopes.push(parseEnvelope(request.body));
        return {};
      }),
  });
  client = Sentry.getClient() as Client;
  // As the server keeps each request's scopes (lib/server/app-server.ts).
  startRequestScopes();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  await Sentry.close();
  context.disable();
});
beforeEach(() => {
  envelopes.length = 0;
});

/** A request's spans as Next opens them, sent through the processor under test. */
async function traceRequest(
  name: string,
  status: number,
  {
    target = '',
    fetchUrl = '',
    undiciUrl = '',
    undiciMethod = 'GET',
    kind = SpanKind.SERVER,
    isProxyPass = false,
  } = {},
) {
  const provider = new BasicTracerProvider({
    spanProcessors: [new LocalTraces(sendAsTransactions(client, 1))],
  });
  const tracer = provider.getTracer('next.js');
  // As server.mjs hands a request over: in a request context, in scopes of its own, in the trace
  // decided for it as it arrived.
  const headers = {
    'sentry-trace': '0123456789abcdef0123456789abcdef-0123456789abcdef-1',
    baggage: 'sentry-trace_id=0123456789abcdef0123456789abcdef,sentry-public_key=caller,sentry-sampled=true',
  };
  runWithClientAddress('127.0.0.1', () =>
    traceIfSampled(headers, 1, client, () => {
      // As Next opens a request's root span: in the context its propagator extracts.
      const caller = scopeTracePropagator(client, 0.1).extract(context.active(), {}, defaultTextMapGetter);
      context.with(caller, () =>
        tracer.startActiveSpan(
          name,
          { kind, attributes: { 'next.route': name.split(' ')[1] ?? '', 'http.target': target } },
          (root) => {
            if (isProxyPass) {
              // Next's pass through proxy.ts before it routes a server action: the proxy's span alone.
              const proxyName = `middleware ${name}`;
              tracer
                .startSpan(proxyName, {
                  attributes: { 'next.span_type': 'Middleware.execute', 'next.span_name': proxyName },
                })
                .end();
            } else {
              tracer.startSpan(`render route (app) ${name.split(' ')[1]}`).end();
            }
            if (undiciUrl !== '') {
              // As undici's instrumentation opens a request out: named by its method alone, one it
              // does not know (WebDAV's) as `HTTP`, with `_OTHER` as its method.
              provider
                .getTracer('@opentelemetry/instrumentation-undici')
                .startSpan(undiciMethod === 'GET' ? 'GET' : 'HTTP', {
                  kind: SpanKind.CLIENT,
                  attributes: {
                    'http.request.method': undiciMethod === 'GET' ? 'GET' : '_OTHER',
                    'http.request.method_original': undiciMethod,
                    'url.full': undiciUrl,
                  },
                })
                .end();
            }
            if (fetchUrl !== '') {
              const fetchName = `fetch GET ${fetchUrl}`;
              tracer.startSpan(fetchName, { attributes: { 'http.url': fetchUrl, 'next.span_name': fetchName } }).end();
            }
            root.setAttribute('http.status_code', status);
            root.end();
          },
        ),
      );
    }),
  );
  await client.flush(1_000);
}

const transactions = () =>
  envelopes
    .flatMap(([, items]) => items as unknown as [{ type: string }, unknown][])
    .flatMap(([header, payload]) => (header.type === 'transaction' ? [payload as Event] : []));

describe('sendAsTransactions', () => {
  it("sends a request's spans as one http.server transaction named as Next names the request", async () => {
    await traceRequest('GET /status', 200);
    const [transaction] = transactions();
    expect(transaction).toMatchObject({
      type: 'transaction',
      transaction: 'GET /status',
      environment: 'test',
      release: 'r1',
      contexts: {
        trace: {
          op: 'http.server',
          status: 'ok',
          trace_id: '0123456789abcdef0123456789abcdef',
          parent_span_id: '0123456789abcdef',
        },
      },
    });
    expect(transaction?.spans?.map((span) => [span.description, span.parent_span_id])).toEqual([
      ['render route (app) /status', transaction?.contexts?.trace?.span_id],
    ]);
    // The envelope carries the trace's sampling context, its head's, as the SDK's own transactions do.
    expect(envelopes[0]?.[0].trace).toMatchObject({
      trace_id: '0123456789abcdef0123456789abcdef',
      public_key: 'caller',
      sampled: 'true',
    });
  });

  it("filters the secrets in the request's and its fetches' URLs, as the SDK filters its own spans'", async () => {
    await traceRequest('GET /status', 200, {
      target: '/status?token=QUERYSECRET&page=2',
      fetchUrl: 'http://127.0.0.1:9/items?api_key=FETCHSECRET&q=shoes',
    });
    const [transaction] = transactions();
    expect(transaction?.contexts?.trace?.data?.['http.target']).toBe('/status?token=[Filtered]&page=2');
    const fetchSpan = transaction?.spans?.find((span) => span.description?.startsWith('fetch'));
    expect(fetchSpan).toMatchObject({
      description: 'fetch GET http://127.0.0.1:9/items?api_key=[Filtered]&q=shoes',
      data: {
        'http.url': 'http://127.0.0.1:9/items?api_key=[Filtered]&q=shoes',
        'next.span_name': 'fetch GET http://127.0.0.1:9/items?api_key=[Filtered]&q=shoes',
      },
    });
    expect(JSON.stringify(envelopes)).not.toMatch(/QUERYSECRET|FETCHSECRET/);
  });

  it("names a request out by its method and URL, as Sentry names its own, the URL's query left filtered in its data", async () => {
    await traceRequest('GET /status', 200, { undiciUrl: 'http://127.0.0.1:9/items?api_key=FETCHSECRET&q=shoes#top' });
    const [transaction] = transactions();
    const requestOut = transaction?.spans?.find((span) => span.op === 'http.client');
    expect(requestOut).toMatchObject({
      description: 'GET http://127.0.0.1:9/items',
      origin: 'auto.http.otel.undici',
      data: { 'url.full': 'http://127.0.0.1:9/items?api_key=[Filtered]&q=shoes#top' },
    });
  });

  it('names a request out with a method undici does not know by the method sent', async () => {
    await traceRequest('GET /status', 200, { undiciUrl: 'http://127.0.0.1:9/files/a', undiciMethod: 'PROPFIND' });
    const [transaction] = transactions();
    expect(transaction?.spans?.find((span) => span.op === 'http.client')?.description).toBe(
      'PROPFIND http://127.0.0.1:9/files/a',
    );
  });

  it("sends Next's work outside a request with its own kind, not as an http.server request", async () => {
    await traceRequest('GET /status', 200);
    await traceRequest('NextNodeServer.findPageComponents', 200, { kind: SpanKind.INTERNAL });
    expect(transactions().map((transaction) => [transaction.transaction, transaction.contexts?.trace?.op])).toEqual([
      ['GET /status', 'http.server'],
      ['NextNodeServer.findPageComponents', 'function.nextjs'],
    ]);
  });

  it("names Next's pass through the proxy before a server action after the proxy's span, as Sentry's SDK does, not by its method alone", async () => {
    await traceRequest('POST', 200, { target: '/status', isProxyPass: true });
    await traceRequest('POST /status', 200, { target: '/status' });
    expect(transactions().map((transaction) => transaction.transaction)).toEqual(['middleware POST', 'POST /status']);
  });

  it('drops a not-found page, by its name or by its 404, through the same beforeSendTransaction as the browser', async () => {
    await traceRequest('GET /_not-found', 200);
    await traceRequest('GET /products/[id]', 404);
    await traceRequest('GET /status', 200);
    expect(transactions().map((transaction) => transaction.transaction)).toEqual(['GET /status']);
  });
});
