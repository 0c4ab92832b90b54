import type { Envelope, EnvelopeItem, Transport } from '@sentry/core';

type StreamedSpan = { attributes?: Record<string, { value?: unknown } | undefined> };
type SpanContainer = { items?: StreamedSpan[] };

function segmentOf(span: StreamedSpan): unknown {
  return span.attributes?.['sentry.segment.name']?.value;
}

/**
 * A span item without the spans of not-found pages, or undefined when none is left. A span names
 * its page by its root's name: the URL's path for an unknown URL or a static route, which is what
 * the not-found screen records. A dynamic route's root is named by its template (`/posts/[slug]`),
 * so a route of that kind calling notFound() needs its not-found screen to record that name too.
 */
function withoutNotFoundSpans(item: EnvelopeItem, notFoundPaths: ReadonlySet<string>): EnvelopeItem | undefined {
  const [header, payload] = item;
  if (header.type !== 'span' || typeof payload !== 'object' || payload === null) return item;
  const spans = (payload as SpanContainer).items;
  if (!Array.isArray(spans)) return item;
  const kept = spans.filter((span) => !notFoundPaths.has(String(segmentOf(span))));
  if (kept.length === spans.length) return item;
  if (kept.length === 0) return undefined;
  return [
    { ...header, item_count: kept.length },
    { ...payload, items: kept },
  ] as EnvelopeItem;
}

/**
 * A transport that never sends the spans of a page the not-found screen was shown for. SDK 11 sends
 * an interaction's INP span as a streamed span of its own, whatever `traceLifecycle` says, past
 * `beforeSendTransaction`, and no option drops one (`beforeSendSpan` may not return null,
 * `ignoreSpans` reads names, and an unknown URL's is the URL): so they are dropped on their way
 * out, before the offline queue keeps them.
 */
export function droppingNotFoundSpans(transport: Transport, notFoundPaths: ReadonlySet<string>): Transport {
  return {
    flush: (timeout) => transport.flush(timeout),
    send(envelope) {
      if (notFoundPaths.size === 0) return transport.send(envelope);
      const [header, items] = envelope;
      const filtered = (items as EnvelopeItem[]).map((item) => withoutNotFoundSpans(item, notFoundPaths));
      if (filtered.every((item, index) => item === items[index])) return transport.send(envelope);
      const kept = filtered.filter((item) => item !== undefined);
      return kept.length === 0 ? Promise.resolve({}) : transport.send([header, kept] as Envelope);
    },
  };
}
