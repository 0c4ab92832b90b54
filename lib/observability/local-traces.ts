import 'server-only';
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { getCurrentScope, getIsolationScope, type Scope } from '@sentry/core';

/** A root span of this process (a request's) and the spans under it that ended before it. */
export type LocalTrace = {
  root: ReadableSpan;
  spans: ReadableSpan[];
  /** The Sentry scopes the root started in: the request's, with its trace decision and data. */
  scope: Scope;
  isolationScope: Scope;
};

/**
 * How many spans may be open at once before the oldest is given up (one that never ended): about
 * 2,000 requests' worth of Next's spans.
 */
const MAX_OPEN_SPANS = 100_000;
/** As many spans as Sentry keeps in one transaction: a long-lived root holds no more. */
const MAX_SPANS = 1_000;

type OpenTrace = Omit<LocalTrace, 'root'> & { rootId: string; hasEnded: boolean };

function isLocalRoot(span: Pick<ReadableSpan, 'parentSpanContext'>): boolean {
  return span.parentSpanContext === undefined || span.parentSpanContext.isRemote === true;
}

/**
 * Collects each local trace, from its root's start to its root's end, and hands it on whole, as
 * one transaction is. Concurrent requests of one trace (a page's parallel fetches) are separate
 * local traces. A span that ends after its root is dropped, as the SDK drops one that ends after
 * its transaction, and so is any past the thousandth of a trace. A root given up to the cap on
 * open spans is reported through `giveUp`, as its transaction will never be sent.
 */
export class LocalTraces implements SpanProcessor {
  readonly #send: (trace: LocalTrace) => void;
  readonly #giveUp: () => void;
  readonly #maxOpenSpans: number;
  /**
   * Each open span's trace, by span id, oldest first. A plain Map: lru-cache, which this was, clears
   * its whole capacity whenever its last entry goes, as it did after every request
   * (docs/performance.md).
   */
  readonly #traceOf = new Map<string, OpenTrace>();

  constructor(send: (trace: LocalTrace) => void, giveUp: () => void = () => {}, maxOpenSpans = MAX_OPEN_SPANS) {
    this.#send = send;
    this.#giveUp = giveUp;
    this.#maxOpenSpans = maxOpenSpans;
  }

  onStart(span: Span, _parentContext: Context): void {
    const { spanId } = span.spanContext();
    const parentId = span.parentSpanContext?.spanId;
    const open =
      isLocalRoot(span) || parentId === undefined
        ? { rootId: spanId, hasEnded: false, spans: [], scope: getCurrentScope(), isolationScope: getIsolationScope() }
        : this.#traceOf.get(parentId);
    if (open === undefined) return;
    this.#traceOf.set(spanId, open);
    if (this.#traceOf.size > this.#maxOpenSpans) this.#giveUpOldest();
  }

  #giveUpOldest(): void {
    const oldest = this.#traceOf.entries().next().value;
    if (oldest === undefined) return;
    const [spanId, open] = oldest;
    this.#traceOf.delete(spanId);
    if (spanId === open.rootId && !open.hasEnded) this.#giveUp();
  }

  onEnd(span: ReadableSpan): void {
    const { spanId } = span.spanContext();
    const open = this.#traceOf.get(spanId);
    if (open === undefined) return;
    this.#traceOf.delete(spanId);
    if (open.hasEnded) return;
    if (spanId !== open.rootId) {
      if (open.spans.length < MAX_SPANS) open.spans.push(span);
      return;
    }
    open.hasEnded = true;
    this.#send({ root: span, spans: open.spans, scope: open.scope, isolationScope: open.isolationScope });
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.#traceOf.clear();
  }
}
