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

/** How many requests may be open at once before the oldest is given up (a root never ended). */
const MAX_OPEN_TRACES = 2_000;
/** How many spans may be open at once, children of ended roots included, before the oldest goes. */
const MAX_OPEN_SPANS = MAX_OPEN_TRACES * 50;
/** As many spans as Sentry keeps in one transaction: a long-lived root holds no more. */
const MAX_SPANS = 1_000;

/** What an open span knows of its local trace: what is collected, until the root ends. */
type OpenTrace = { rootId: string; collected?: Omit<LocalTrace, 'root'> };

/**
 * Collects each local trace, from its root's start to its root's end, and hands it on whole, as
 * one transaction is. Concurrent requests of one trace (a page's parallel fetches) are separate
 * local traces. A span that ends after its root is dropped, as the SDK drops one that ends after
 * its transaction, and so is any past the thousandth of a trace. A root given up to the caps
 * is reported through `giveUp`, as its transaction will never be sent.
 */
export class LocalTraces implements SpanProcessor {
  readonly #send: (trace: LocalTrace) => void;
  readonly #giveUp: () => void;
  readonly #maxOpenTraces: number;
  readonly #maxOpenSpans: number;
  /**
   * Plain Maps, oldest first: lru-cache, which these were, clears its whole capacity whenever its
   * last entry goes, as it did after every sampled request (docs/performance.md).
   */
  readonly #openRoots = new Map<string, OpenTrace>();
  readonly #traceOf = new Map<string, OpenTrace>();

  constructor(
    send: (trace: LocalTrace) => void,
    giveUp: () => void = () => {},
    { maxOpenTraces = MAX_OPEN_TRACES, maxOpenSpans = MAX_OPEN_SPANS } = {},
  ) {
    this.#send = send;
    this.#giveUp = giveUp;
    this.#maxOpenTraces = maxOpenTraces;
    this.#maxOpenSpans = maxOpenSpans;
  }

  onStart(span: Span, _parentContext: Context): void {
    const { spanId } = span.spanContext();
    const parent = span.parentSpanContext;
    let open: OpenTrace | undefined;
    // A local root: the request's, under no parent or under the caller's.
    if (parent === undefined || parent.isRemote === true) {
      open = {
        rootId: spanId,
        collected: { spans: [], scope: getCurrentScope(), isolationScope: getIsolationScope() },
      };
      this.#openRoots.set(spanId, open);
      if (this.#openRoots.size > this.#maxOpenTraces) this.#abandon(this.#openRoots.values().next().value);
    } else {
      open = this.#traceOf.get(parent.spanId);
      if (open?.collected === undefined) return;
    }
    this.#traceOf.set(spanId, open);
    if (this.#traceOf.size > this.#maxOpenSpans) {
      const [oldestId, oldest] = this.#traceOf.entries().next().value ?? [];
      if (oldestId === undefined || oldest === undefined) return;
      this.#traceOf.delete(oldestId);
      if (oldestId === oldest.rootId) this.#abandon(oldest);
    }
  }

  /** Gives up a root that has not ended: what it collected is let go, and reported. */
  #abandon(open: OpenTrace | undefined): void {
    if (open?.collected === undefined) return;
    open.collected = undefined;
    this.#openRoots.delete(open.rootId);
    this.#giveUp();
  }

  onEnd(span: ReadableSpan): void {
    const { spanId } = span.spanContext();
    const open = this.#traceOf.get(spanId);
    this.#traceOf.delete(spanId);
    const collected = open?.collected;
    if (open === undefined || collected === undefined) return;
    if (spanId !== open.rootId) {
      if (collected.spans.length < MAX_SPANS) collected.spans.push(span);
      return;
    }
    open.collected = undefined;
    this.#openRoots.delete(spanId);
    this.#send({ root: span, ...collected });
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.#openRoots.clear();
    this.#traceOf.clear();
  }
}
