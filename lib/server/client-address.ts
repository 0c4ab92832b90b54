import 'server-only';
import { env } from '@/lib/env';
import { requestClientAddress } from '@/lib/server/seam.mjs';

/**
 * Who is asking, for per-client limits. Behind a proxy we trust (TRUST_PROXY), the address it
 * appended to X-Forwarded-For last; otherwise the socket's, as server.mjs saw it. Never what the
 * client says of itself.
 */
export function clientAddressOf(
  headers: { get(name: string): string | null },
  trustProxy = env.TRUST_PROXY === true,
): string {
  const forwardedFor = headers.get('x-forwarded-for');
  if (trustProxy && forwardedFor) {
    return forwardedFor.split(',').at(-1)?.trim() || 'unknown';
  }
  return requestClientAddress() ?? 'unknown';
}
