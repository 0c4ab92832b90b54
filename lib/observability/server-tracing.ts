import 'server-only';
import Module from 'node:module';
import { type Attributes, context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { BasicTracerProvider, ParentBasedSampler, type Sampler, SamplingDecision } from '@opentelemetry/sdk-trace-base';
import type { Client } from '@sentry/core';
import { withoutRequireHook } from '@/lib/framework-internals.mjs';
import { LocalTraces } from '@/lib/observability/local-traces';
import { instrumentPackages, registerChannelInstrumentations } from '@/lib/observability/package-instrumentation';
import { requestTraceIds, scopeTracePropagator } from '@/lib/observability/span-propagation';
import { sendAsTransactions } from '@/lib/observability/span-transactions';
import { constructTracedPackages } from '@/lib/observability/traced-packages';
import { inBatches } from '@/lib/observability/transaction-batches';
import { isUntracedTarget } from '@/lib/observability/untraced-requests';
import { isRequestDecided, isRequestTraced } from '@/lib/server/seam.mjs';

/**
 * Whether a span is Next's root span of a request that is never traced (untraced-requests.ts), named
 * by the target Next records on it (`http.target`, in its documented span attributes).
 */
function isUntracedRequest(spanKind: SpanKind, attributes: Attributes): boolean {
  // The proxy's span records the request's target too, under the request's own span.
  if (spanKind !== SpanKind.SERVER) return false;
  const target = attributes['http.target'];
  return typeof target === 'string' && isUntracedTarget(target);
}

/**
 * A span follows its parent, in this process or the caller's. A request's root follows the decision
 * server.mjs made as the request arrived (lib/observability/request-tracing.ts), which a caller's
 * span, read from the request's scope (span-propagation.ts), carries too. Where nothing decided
 * (`next dev`, Next's start-up work), a root is decided at the rate. A probe's request and the
 * tunnel's are never sampled, whatever the caller decided.
 */
function requestSampler(sampleRate: number): Sampler {
  const sampler = new ParentBasedSampler({
    root: {
      shouldSample: () => ({
        decision: (isRequestDecided() ? isRequestTraced() : Math.random() < sampleRate)
          ? SamplingDecision.RECORD_AND_SAMPLED
          : SamplingDecision.NOT_RECORD,
      }),
      toString: () => `RequestSampler(${sampleRate})`,
    },
  });
  return {
    // Before the parent's decision: a caller's sampled trace does not make a probe's or the
    // tunnel's request one.
    shouldSample: (parentContext, traceId, spanName, spanKind, attributes, links) =>
      isUntracedRequest(spanKind, attributes)
        ? { decision: SamplingDecision.NOT_RECORD }
        : sampler.shouldSample(parentContext, traceId, spanName, spanKind, attributes, links),
    toString: () => sampler.toString(),
  };
}

/**
 * The server's traces: OpenTelemetry's SDK records the spans Next and the registered
 * instrumentations open, and each request's spans go to Sentry as one transaction
 * (lib/observability/span-transactions.ts), sent in batches (transaction-batches.ts). Sentry's own
 * tracing stays off: its span layer cost a traced request several times an untraced one
 * (docs/performance.md). Call it after `Sentry.init`, before any request.
 */
export function startServerTracing(client: Client, sampleRate: number): void {
  const provider = new BasicTracerProvider({
    idGenerator: requestTraceIds,
    sampler: requestSampler(sampleRate),
    spanProcessors: [
      new LocalTraces(inBatches(sendAsTransactions(client, sampleRate), client), () =>
        client.recordDroppedEvent('queue_overflow', 'transaction'),
      ),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(scopeTracePropagator(client, sampleRate));
  trace.setGlobalTracerProvider(provider);
  // `fetch` through Node's undici, whose diagnostics channels give its spans and carry Sentry's
  // trace headers out, and the client libraries the server uses, patched now rather than as they
  // load (lib/observability/traced-packages.ts). Next's own span around each `fetch` is turned off
  // by its documented switch, which it reads at each call, as Sentry's SDK does when it owns the
  // spans: each request out is one `http.client` span, not that and a `function.nextjs` one above
  // it (a `fetch` Next's data cache answers then has no span, nor its cache status). A request out
  // of no traced work (a background job, the version check of `next dev`) starts no transaction
  // of its own, as the SDK's own request spans need a parent; it carries its scope's trace, as the
  // SDK's do: the one the work started or continued (`Sentry.startNewTrace`, `continueTrace`),
  // else the process's own.
  process.env.NEXT_OTEL_FETCH_DISABLED = '1';
  const { fetchInstrumentation, packages } = withoutRequireHook(Module, process, () => ({
    fetchInstrumentation: new UndiciInstrumentation({ requireParentforSpans: true }),
    packages: constructTracedPackages(),
  }));
  registerChannelInstrumentations(provider, [fetchInstrumentation]);
  instrumentPackages(provider, packages);
}
