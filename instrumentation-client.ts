// Turbopack loads only this file as the browser entry. It holds no Sentry code, only a buffer for
// early errors: the SDK itself (sentry.client.config.ts) is imported once the page is idle.
import { startLazyReporting } from '@/lib/observability/lazy-reporting';

const reporting = startLazyReporting();

export function onRouterTransitionStart(href: string, navigationType: string): void {
  reporting.onRouterTransitionStart(href, navigationType);
}
