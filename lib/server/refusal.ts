import 'server-only';
import { env } from '@/lib/env';
import { productionPolicy } from '@/lib/security/content-security-policy';
import { securityHeaders } from '@/lib/security/headers';
import { textResponse } from '@/lib/server/text-response';

// A text body loads nothing: the strict policy with no script hashes.
const headers = securityHeaders({
  hstsMaxAgeSeconds: env.HSTS_MAX_AGE_SECONDS,
  contentSecurityPolicy: productionPolicy({ hashes: [] }),
});

/**
 * A response written outside Next (the tunnel's, and server.mjs's own refusals), given the
 * security headers next.config.ts gives every response Next writes.
 */
export function withSecurityHeaders(response: Response): Response {
  for (const { key, value } of headers) response.headers.set(key, value);
  return response;
}

/** A refusal a client can read, as textResponse, with the security headers. */
export function refusal(status: number, reason: string, extraHeaders: Record<string, string> = {}): Response {
  return withSecurityHeaders(textResponse(status, reason, extraHeaders));
}
