import { type Breadcrumb, type Event, filterCollectedUrl } from '@sentry/core';

const URL_HEADERS = ['referer', 'Referer'];
const BREADCRUMB_URLS = ['url', 'from', 'to'];

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
