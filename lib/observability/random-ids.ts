import 'server-only';
import { randomUUID } from 'node:crypto';

// Sentry's own id helpers run each call inside an AsyncLocalStorage snapshot that @sentry/nextjs
// keeps for Next's cache components (off here: next.config.ts). On Node 20 entering it costs more
// than the id, and a traced server draws ids on every request (docs/performance.md). These are the
// same ids, drawn directly.

/** A trace or event id as Sentry's SDKs draw one: the 32 hex digits of a random UUID. */
export function randomUuidHex(): string {
  return randomUUID().replaceAll('-', '');
}

/** A span id as Sentry's SDKs draw one: the last 16 of those digits. */
export function randomSpanId(): string {
  return randomUuidHex().slice(16);
}
