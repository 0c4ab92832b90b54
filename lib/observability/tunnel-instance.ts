import 'server-only';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserDsn, env } from '@/lib/env';
import { EnvelopeSpool } from '@/lib/observability/envelope-spool';
import { RateLimiter } from '@/lib/observability/rate-limiter';
import {
  deliverToIngest,
  forwardEnvelope,
  ingestUrlMatcher,
  type TunnelOptions,
  type TunnelRequest,
} from '@/lib/observability/tunnel';
import { productionPolicy } from '@/lib/security/content-security-policy';
import { securityHeaders } from '@/lib/security/headers';

// Relay accepts events up to 30 days old (`max_secs_in_past`); older ones are not worth sending.
const MAX_ENVELOPE_AGE_MS = 30 * 24 * 60 * 60 * 1_000;
const RATE_LIMIT_WINDOW_MS = 60_000;
// Set by server.mjs from the socket, replacing whatever the client sent.
const CLIENT_SOCKET_HEADER = 'x-client-socket-address';

function createTunnel(): TunnelOptions {
  const dsn = browserDsn;
  return {
    dsn,
    maxBodyBytes: env.SENTRY_TUNNEL_MAX_BYTES,
    upstreamTimeoutMs: env.SENTRY_TUNNEL_TIMEOUT_MS,
    limiter: new RateLimiter(env.SENTRY_TUNNEL_RATE_LIMIT, RATE_LIMIT_WINDOW_MS),
    spool:
      dsn === undefined
        ? undefined
        : new EnvelopeSpool({
            dir: env.SENTRY_TUNNEL_SPOOL_DIR ?? join(tmpdir(), 'sentry-tunnel-spool'),
            maxBytes: env.SENTRY_TUNNEL_SPOOL_MAX_BYTES,
            maxAgeMs: MAX_ENVELOPE_AGE_MS,
            deliver: (body) => deliverToIngest(dsn, body, env.SENTRY_TUNNEL_TIMEOUT_MS),
          }),
  };
}

// Next bundles instrumentation and route handlers separately, each with its own copy of this
// module; the process-wide slot makes them share one spool, so no envelope is delivered twice.
const slot = Symbol.for('app.observability.tunnel');
type WithTunnel = typeof globalThis & { [slot]?: TunnelOptions };

export function getTunnel(): TunnelOptions {
  const global = globalThis as WithTunnel;
  global[slot] ??= createTunnel();
  return global[slot];
}

/**
 * Who is asking, for the per-client limit. Behind a proxy we trust (TRUST_PROXY), the address it
 * appended to X-Forwarded-For last; otherwise the socket's. Never what the client says of itself.
 */
export function clientAddressOf(request: TunnelRequest, trustProxy = env.TRUST_PROXY === true): string {
  const forwardedFor = request.headers.get('x-forwarded-for');
  if (trustProxy && forwardedFor) {
    return forwardedFor.split(',').at(-1)?.trim() || 'unknown';
  }
  return request.headers.get(CLIENT_SOCKET_HEADER) || 'unknown';
}

/** True for the tunnel's own requests to ingest. */
export const isTunnelUpstreamUrl = ingestUrlMatcher(browserDsn);

const tunnelHeaders = securityHeaders({
  hstsMaxAgeSeconds: env.HSTS_MAX_AGE_SECONDS,
  contentSecurityPolicy: productionPolicy({ hashes: [] }),
});

export async function handleTunnelRequest(request: TunnelRequest): Promise<Response> {
  const response = await forwardEnvelope(request, getTunnel(), clientAddressOf(request));
  for (const { key, value } of tunnelHeaders) response.headers.set(key, value);
  return response;
}
