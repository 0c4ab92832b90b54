import { browserDsn } from '@/lib/env';
import { forwardEnvelope } from '@/lib/observability/tunnel';

// Sentry drops events over 1 MB anyway; a larger body is refused before it is read.
const MAX_BODY_BYTES = 1024 * 1024;
// Sentry's Relay gives its upstream 5 s; a slower ingest must not hold browser connections open.
const UPSTREAM_TIMEOUT_MS = 5_000;

export function POST(request: Request): Promise<Response> {
  return forwardEnvelope(request, {
    dsn: browserDsn,
    maxBodyBytes: MAX_BODY_BYTES,
    upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS,
  });
}
