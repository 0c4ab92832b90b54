import 'server-only';
import { type Attributes, SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  applyScopeDataToEvent,
  type Client,
  captureException,
  createEventEnvelope,
  getCombinedScopeData,
  getSpanStatusFromHttpCode,
  getStatusMessage,
  isThenable,
  type SpanJSON,
  type SpanOrigin,
  spanTimeInputToSeconds,
  stripUrlQueryAndFragment,
  type TransactionEvent,
} from '@sentry/core';
import { proxySpanNameOf } from '@/lib/framework-internals.mjs';
import type { LocalTrace } from '@/lib/observability/local-traces';
import { randomUuidHex } from '@/lib/observability/random-ids';
import { samplingContextOf } from '@/lib/observability/span-propagation';
import { withFilteredSpanUrls } from '@/lib/observability/url-privacy';

const NEXT_TRACER = 'next.js';
type SentryKind = { op?: string; origin: SpanOrigin };
/** Ops and origins of Next's spans and of the instrumentations the server registers, in Sentry's terms. */
const KINDS: Record<string, SentryKind> = {
  [NEXT_TRACER]: { op: 'function.nextjs', origin: 'auto.function.otel.nextjs' },
  '@opentelemetry/instrumentation-generic-pool': { op: 'db', origin: 'auto.db.otel.generic_pool' },
  '@opentelemetry/instrumentation-undici': { op: 'http.client', origin: 'auto.http.otel.undici' },
};
const OTHER_KIND: SentryKind = { origin: 'auto.otel' };

function httpStatusOf(span: ReadableSpan): number | undefined {
  const code = span.attributes['http.status_code'] ?? span.attributes['http.response.status_code'];
  return typeof code === 'number' ? code : undefined;
}

function statusOf(span: ReadableSpan): string {
  const code = httpStatusOf(span);
  // OpenTelemetry's status codes are Sentry's; its messages are not, so an error is `internal_error`.
  return getStatusMessage(code === undefined ? { code: span.status.code } : getSpanStatusFromHttpCode(code));
}

/**
 * An outgoing request's span (undici's, named by its method alone) as Sentry names its own: the
 * method as sent (undici's `http.request.method` says `_OTHER` for one it does not know) and the
 * URL without its query, which stays in the span's data, filtered. Any other span keeps its name.
 */
function descriptionOf(op: string | undefined, name: string, attributes: Attributes): string {
  const method = attributes['http.request.method_original'] ?? attributes['http.request.method'];
  const url = attributes['url.full'];
  if (op !== 'http.client' || typeof method !== 'string' || typeof url !== 'string') return name;
  return `${method} ${stripUrlQueryAndFragment(url)}`;
}

function spanJson(span: ReadableSpan, client: Client): SpanJSON {
  const { traceId, spanId } = span.spanContext();
  const { op, origin } = KINDS[span.instrumentationScope.name] ?? OTHER_KIND;
  const { name, attributes } = withFilteredSpanUrls(span.name, span.attributes, client);
  return {
    span_id: spanId,
    parent_span_id: span.parentSpanContext?.spanId,
    trace_id: traceId,
    description: descriptionOf(op, name, attributes),
    op,
    start_timestamp: spanTimeInputToSeconds(span.startTime),
    timestamp: spanTimeInputToSeconds(span.endTime),
    status: statusOf(span),
    data: { ...attributes, 'sentry.op': op, 'sentry.origin': origin },
    origin,
  };
}

/**
 * What a request's transaction is called: as Next names the request, but for the pass Next makes
 * through the proxy (`proxy.ts`, which only server actions reach) before it routes the request. That
 * pass is a request root of its own, with no route, which Next names by the method alone: it is
 * named after the proxy's span (`middleware POST`), as Sentry's SDK names it.
 */
function requestNameOf(trace: LocalTrace, rootName: string): string {
  if (trace.root.attributes['next.route']) return rootName;
  for (const span of trace.spans) {
    const proxyName = proxySpanNameOf(span.attributes);
    if (proxyName !== undefined) return proxyName;
  }
  return rootName;
}

/**
 * A local trace as the transaction event Sentry's own spans would have made of it, with the data
 * of the scopes its root started in (tags, user, contexts). A request's root (a server span, as
 * Next opens one for each request) is the server's `http.server` transaction, named as Next names
 * the request; any other root, such as Next's work outside a request, keeps its own kind.
 */
function transactionOf(trace: LocalTrace, client: Client, sampleRate: number): TransactionEvent {
  const root = spanJson(trace.root, client);
  const isRequest = trace.root.kind === SpanKind.SERVER;
  const op = isRequest ? 'http.server' : root.op;
  const origin: SpanOrigin = isRequest ? 'auto.http.otel.nextjs' : (root.origin ?? 'auto.otel');
  const status = httpStatusOf(trace.root);
  const name = isRequest ? requestNameOf(trace, root.description ?? '') : root.description;
  const options = client.getOptions();
  const event: TransactionEvent = {
    type: 'transaction',
    event_id: randomUuidHex(),
    platform: 'node',
    transaction: name,
    transaction_info: { source: isRequest ? 'route' : 'custom' },
    start_timestamp: root.start_timestamp,
    timestamp: root.timestamp,
    contexts: {
      trace: {
        trace_id: root.trace_id,
        span_id: root.span_id,
        parent_span_id: root.parent_span_id,
        op,
        status: root.status,
        origin,
        data: {
          ...root.data,
          'sentry.op': op,
          'sentry.origin': origin,
          'sentry.sample_rate': sampleRate,
          ...(status === undefined ? {} : { 'http.response.status_code': status }),
        },
      },
    },
    spans: trace.spans.map((span) => spanJson(span, client)),
    environment: options.environment,
    release: options.release,
    sdkProcessingMetadata: {
      dynamicSamplingContext: samplingContextOf(
        client,
        trace.scope.getPropagationContext(),
        root.trace_id,
        true,
        sampleRate,
        {
          transaction: name,
        },
      ),
    },
  };
  applyScopeDataToEvent(event, getCombinedScopeData(trace.isolationScope, trace.scope));
  return event;
}

/**
 * Sends each local trace as its transaction, through the client (to the DSN and to Spotlight),
 * after the same `beforeSendTransaction` the SDK's own transactions go through (not-found and
 * Next's start-up traces dropped). The SDK's event pipeline is not run: it is what made a traced
 * request cost several times an untraced one (docs/performance.md). Runs in the server's batches
 * of finished traces (lib/observability/transaction-batches.ts): nothing it does may throw there.
 */
export function sendAsTransactions(client: Client, sampleRate: number): (trace: LocalTrace) => void {
  return (trace) => {
    try {
      const event = transactionOf(trace, client, sampleRate);
      const { beforeSendTransaction, tunnel } = client.getOptions();
      const kept = beforeSendTransaction ? beforeSendTransaction(event, {}) : event;
      // The app's hook answers at once (lib/observability/sentry-options.ts).
      if (kept === null || isThenable(kept)) {
        client.recordDroppedEvent('before_send', 'transaction');
        return;
      }
      void client.sendEnvelope(createEventEnvelope(kept, client.getDsn(), client.getSdkMetadata(), tunnel));
    } catch (error) {
      captureException(error);
    }
  };
}
