import type { Attributes } from '@opentelemetry/api';
import { type Breadcrumb, type Client, type Event, filterCollectedUrl } from '@sentry/core';

const URL_HEADERS = ['referer', 'Referer'];
const BREADCRUMB_URLS = ['url', 'from', 'to'];
/**
 * Where Next's spans (`http.target`; `http.url` on its own `fetch` span, which the server turns
 * off but a product could turn on again) and OpenTelemetry's `fetch` spans keep a URL or its query.
 */
const SPAN_URL_ATTRIBUTES = ['http.target', 'http.url', 'url.full', 'url.query'];

/**
 * An event with its URLs' secrets filtered (`token=[Filtered]`, by the SDK's own list), where the
 * SDK leaves them as they are: the browser's page URL (its `dataCollection` does not gate it) and
 * the Referer header (filtered by its name alone), in the browser and on the server.
 */
export function withFilteredUrls<T extends Event>(event: T): T {
  const { request } = event;
  if (request?.url !== undefined) request.url = filterCollectedUrl(request.url);
  const headers = request?.headers;
  if (headers !== undefined) {
    for (const name of URL_HEADERS) {
      const value = headers[name];
      if (value !== undefined) headers[name] = filterCollectedUrl(value) ?? value;
    }
  }
  return event;
}

/** A breadcrumb with the secrets of its URLs filtered: navigations' `from` and `to`, requests' `url`. */
export function withFilteredBreadcrumbUrls(breadcrumb: Breadcrumb): Breadcrumb {
  const { data } = breadcrumb;
  if (data !== undefined) {
    for (const key of BREADCRUMB_URLS) {
      const value = data[key];
      if (typeof value === 'string') data[key] = filterCollectedUrl(value);
    }
  }
  return breadcrumb;
}

/**
 * A server span's name and attributes with the secrets of their URLs filtered, as the SDK filters
 * the URLs of the spans it makes itself. The server's transactions are built from OpenTelemetry's
 * spans without the SDK's event pipeline (span-transactions.ts), so nothing else filters them:
 * Next puts the request's URL in its root's `http.target` (and, were its own `fetch` span on, a
 * `fetch`'s in `http.url`, the span's name and its `next.span_name`), undici in `url.full`.
 */
export function withFilteredSpanUrls(
  name: string,
  attributes: Attributes,
  client: Client,
): { name: string; attributes: Attributes } {
  let filtered: Attributes | undefined;
  let filteredName = name;
  for (const key of SPAN_URL_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value !== 'string' || !value.includes('?')) continue;
    const kept = filterCollectedUrl(value, client) ?? '';
    if (kept === value) continue;
    filtered ??= { ...attributes };
    filtered[key] = kept;
    filteredName = filteredName.replaceAll(value, kept);
  }
  if (filtered === undefined) return { name, attributes };
  const spanName = filtered['next.span_name'];
  if (typeof spanName === 'string' && spanName === name) filtered['next.span_name'] = filteredName;
  return { name: filteredName, attributes: filtered };
}
