import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import Module from 'node:module';
import type { AddressInfo } from 'node:net';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { type BaseTransportOptions, type Client, createTransport, type Event, parseEnvelope } from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { startRequestScopes } from '@/lib/observability/request-scopes';
import { traceIfSampled } from '@/lib/observability/request-tracing';
import { startServerTracing } from '@/lib/observability/server-tracing';
import { runWithClientAddress } from '@/lib/server/seam.mjs';
import { DEV_TUNNEL_ROUTE, TUNNEL_PATH } from '@/lib/tunnel/tunnel-path';

const transactions: Event[] = [];
const envelopeHeaders: Record<string, unknown>[] = [];
const downstream: IncomingHttpHeaders[] = [];
const server = createServer((request, response) => {
  downstream.push(request.headers);
  response.end('ok');
});
let url = '';
const requireBefore = Module.prototype.require;

beforeAll(async () => {
  Sentry.init({
    dsn: 'http://key@127.0.0.1:9/1',
    environment: 'test',
    release: 'r1',
    defaultIntegrations: false,
    // As on the server: errors land on the active span's trace.
    integrations: [Sentry.openTelemetryIntegration()],
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    transport: (options: BaseTransportOptions) =>
      createTransport(options, async (request) => {
        const [envelopeHeader, items] = parseEnvelope(request.body);
        envelopeHeaders.push(envelopeHeader);
        for (const [header, payload] of items as unknown as [{ type: string }, Event][]) {
          if (header.type === 'transaction') transactions.push(payload);
        }
        return {};
      }),
  });
  // As the server keeps each request's scopes (lib/server/app-server.ts).
  startRequestScopes();
  startServerTracing(Sentry.getClient() as Client, 1);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.close();
  await Sentry.close();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** A request as server.mjs hands it over, sampled, whose handling opens a root span and fetches. */
function tracedRequest(headers: IncomingHttpHeaders, fetchUnderSuppression = false): Promise<void> {
  return runWithClientAddress('127.0.0.1', () =>
    traceIfSampled(headers, 1, Sentry.getClient(), () => {
      Sentry.setTag('request.kind', 'traced');
      const tracer = trace.getTracer('next.js');
      const caller = propagation.extract(context.active(), headers);
      return context.with(caller, () =>
        tracer.startActiveSpan('GET /status', { kind: SpanKind.SERVER }, async (root) => {
          await (await fetch(url)).text();
          if (fetchUnderSuppression) await Sentry.suppressTracing(async () => (await fetch(url)).text());
          root.end();
        }),
      );
    }),
  );
}

/**
 * Opens a server root span (and one under it) per target in a caller's sampled trace, as Next
 * does, and returns the names of the transactions sent in that trace.
 */
async function transactionsOfRootSpans(callerTrace: string, method: string, targets: string[]) {
  const tracer = trace.getTracer('next.js');
  const caller = propagation.extract(context.active(), { 'sentry-trace': `${callerTrace}-0123456789abcdef-1` });
  for (const target of targets) {
    context.with(caller, () =>
      tracer.startActiveSpan(
        `${method} ${target}`,
        { kind: SpanKind.SERVER, attributes: { 'http.method': method, 'http.target': target } },
        (root) => {
          tracer.startSpan('executing api route').end();
          root.end();
        },
      ),
    );
  }
  await Sentry.flush(1_000);
  return transactions.filter((item) => item.contexts?.trace?.trace_id === callerTrace).map((item) => item.transaction);
}

describe('startServerTracing', () => {
  it("leaves the process's require as it found it: no hook resolves every later require", () => {
    expect(Module.prototype.require).toBe(requireBefore);
  });

  it("records a sampled request's fetch as its span, and sends Sentry's trace headers downstream", async () => {
    const traceId = '0123456789abcdef0123456789abcdef';
    const callerBaggage = `sentry-trace_id=${traceId},sentry-public_key=caller,sentry-sampled=true`;
    await tracedRequest({ 'sentry-trace': `${traceId}-0123456789abcdef-1`, baggage: callerBaggage });
    await Sentry.flush(1_000);
    const transaction = transactions.find((item) => item.contexts?.trace?.trace_id === traceId);
    const fetchSpan = transaction?.spans?.find((span) => span.origin === 'auto.http.otel.undici');
    expect(fetchSpan).toMatchObject({ op: 'http.client', parent_span_id: transaction?.contexts?.trace?.span_id });
    expect(downstream.at(-1)?.['sentry-trace']).toBe(`${traceId}-${fetchSpan?.span_id}-1`);
    // The trace's sampling context is its head's, passed on as it came.
    expect(downstream.at(-1)?.baggage).toContain('sentry-public_key=caller');
    expect(transaction?.tags).toMatchObject({ 'request.kind': 'traced' });
  });

  it("turns Next's own span around each fetch off, by its documented switch", () => {
    // Next reads it at each `fetch` (checked against Next in lib/framework-internals.test.ts).
    expect(process.env.NEXT_OTEL_FETCH_DISABLED).toBe('1');
  });

  it("records a request's fetch as undici's one span, named by its method and URL", async () => {
    const traceId = '2123456789abcdef0123456789abcdef';
    await tracedRequest({ 'sentry-trace': `${traceId}-0123456789abcdef-1` });
    await Sentry.flush(1_000);
    const transaction = transactions.find((item) => item.contexts?.trace?.trace_id === traceId);
    expect(transaction?.spans?.map((span) => [span.op, span.description])).toEqual([['http.client', `GET ${url}`]]);
  });

  it("starts no transaction for a fetch out of any traced work, which carries its scope's trace, as the SDK's do", async () => {
    const before = transactions.length;
    await (await fetch(url)).text();
    await Sentry.flush(1_000);
    expect(transactions.slice(before)).toEqual([]);
    const { traceId } = Sentry.getCurrentScope().getPropagationContext();
    expect(downstream.at(-1)?.['sentry-trace']).toMatch(new RegExp(`^${traceId}-[0-9a-f]{16}$`));
    // A trace the work starts (or continues, from a message's headers) is the one its fetches carry.
    const started = await Sentry.startNewTrace(async () => {
      await (await fetch(url)).text();
      return Sentry.getCurrentScope().getPropagationContext().traceId;
    });
    expect(started).not.toBe(traceId);
    expect(downstream.at(-1)?.['sentry-trace']).toMatch(new RegExp(`^${started}-[0-9a-f]{16}$`));
  });

  it('records no span for what runs under Sentry.suppressTracing, and sends no trace headers with it', async () => {
    const traceId = '1123456789abcdef0123456789abcdef';
    await tracedRequest({ 'sentry-trace': `${traceId}-0123456789abcdef-1` }, true);
    await Sentry.flush(1_000);
    const transaction = transactions.find((item) => item.contexts?.trace?.trace_id === traceId);
    const fetchSpans = transaction?.spans?.filter((span) => span.origin === 'auto.http.otel.undici');
    expect(fetchSpans).toHaveLength(1);
    expect(downstream.at(-1)?.['sentry-trace']).toBeUndefined();
  });

  it("sends no transaction for a request to the tunnel, which carries the browser's own envelopes", async () => {
    // Under `next dev` the tunnel is a route, whose requests Next opens root spans for.
    const targets = [
      TUNNEL_PATH,
      `${DEV_TUNNEL_ROUTE}?sentry_key=key`,
      `${TUNNEL_PATH}-report`,
      '/status?after=tunnel',
    ];
    expect(await transactionsOfRootSpans('3123456789abcdef0123456789abcdef', 'POST', targets)).toEqual([
      `POST ${TUNNEL_PATH}-report`,
      'POST /status?after=tunnel',
    ]);
  });

  it('sends no transaction for a health or readiness probe, even in a sampled trace', async () => {
    // A probe asked every few seconds would otherwise be traced at the rate, and at every
    // caller's say-so.
    const targets = ['/api/health', '/api/ready?from=balancer', '/api/healthy', '/status?after=probes'];
    expect(await transactionsOfRootSpans('4123456789abcdef0123456789abcdef', 'GET', targets)).toEqual([
      'GET /api/healthy',
      'GET /status?after=probes',
    ]);
  });

  it("sends a request one transaction when its caller's trace id is all zeros, in a trace of its own", async () => {
    const before = transactions.length;
    await tracedRequest({ 'sentry-trace': `${'0'.repeat(32)}-0123456789abcdef-1` });
    await Sentry.flush(1_000);
    const sent = transactions.slice(before);
    expect(sent.map((item) => item.transaction)).toEqual(['GET /status']);
    expect(sent[0]?.spans?.map((span) => span.op)).toEqual(['http.client']);
    expect(sent[0]?.contexts?.trace?.trace_id).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
  });

  it("gives a trace this server began the project, environment, release and rate in its envelope's header", async () => {
    await tracedRequest({});
    await Sentry.flush(1_000);
    const header = envelopeHeaders.find(
      (item) => (item.trace as { transaction?: string } | undefined)?.transaction === 'GET /status',
    );
    expect(header?.trace).toMatchObject({
      public_key: 'key',
      environment: 'test',
      release: 'r1',
      sample_rate: '1',
      sampled: 'true',
    });
  });
});
