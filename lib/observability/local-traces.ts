import 'server-only';
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { getCurrentScope, getIsolationScope, type Scope } from '@sentry/core';
import { LRUCache } from 'lru-cache';

/** A root span of this process (a request's) and the spans under it that ended before it. */
export type LocalTrace = {
  root: ReadableSpan;
  spans: ReadableSpan[];
  /** The Sentry scopes the root started in: the request's, with its trace decision and data. */
  scope: Scope;
  isolationScope: Scope;
};

/** How many local traces may be open at once before the oldest is given up (a span never ended). */
const MAX_OPEN_TRACES = 2_000;
/** As many spans as Sentry keeps in one transaction: a long-lived root holds no more. */
const MAX_SPANS = 1_000;

type OpenTrace = Omit<LocalTrace, 'root'>;

function isLocalRoot(span: Pick<ReadableSpan, 'parentSpanContext'>): boolean {
  return span.parentSpanContext === undefined || span.parentSpanContext.isRemote === true;
}

/**
 * Collects each local trace, from its root's start to its root's end, and hands it on whole, as
 * one transaction is. Concurrent requests of one trace (a page's parallel fetches) are separate
 * local traces. A span that ends after its root is dropped, as the SDK drops one that ends after
 * its transaction, and so is any past the thousandth of a trace.
 */
export class LocalTraces implements SpanProcessor {
  readonly #send: (trace: LocalTrace) => void;
  /** Each open span's local root, by span id. */
  readonly #rootOf = new LRUCache<string, string>({ max: MAX_OPEN_TRACES * 50 });
  readonly #open = new LRUCache<string, OpenTrace>({ max: MAX_OPEN_TRACES });

  constructor(send: (trace: LocalTrace) => void) {
    this.#send = send;
  }

  onStart(span: Span, _parentContext: Context): void {
    const { spanId } = span.spanContext();
    const parentId = span.parentSpanContext?.spanId;
    if (isLocalRoot(span) || parentId === undefined) {
      this.#rootOf.set(spanId, spanId);
      this.#open.set(spanId, { spans: [], scope: getCurrentScope(), isolationScope: getIsolationScope() });
      return;
    }
    const root = this.#rootOf.get(parentId);
    if (root !== undefined) this.#rootOf.set(spanId, root);
  }

  onEnd(span: ReadableSpan): void {
    const { spanId } = span.spanContext();
    const root = this.#rootOf.get(spanId);
    this.#rootOf.delete(spanId);
    const open = root === undefined ? undefined : this.#open.get(root);
    if (open === undefined) return;
    if (root !== spanId) {
      if (open.spans.length < MAX_SPANS) open.spans.push(span);
      return;
    }
    this.#open.delete(root);
    this.#send({ root: span, ...open });
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.#open.clear();
    this.#rootOf.clear();
  }
}
