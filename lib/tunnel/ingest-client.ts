import 'server-only';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export type IngestResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer };
export type IngestFailure = { failure: 'timeout' | 'unreachable' };

// One pool of kept-alive connections to ingest for the whole process. node:http rather than
// fetch: Next patches the global fetch with its cache and tracing, which slowed the tunnel
// (docs/reliability.md).
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
};

/** Failures that mean only "this kept-alive connection was already closed by the other end". */
const STALE_CONNECTION_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

/**
 * POSTs an envelope to ingest; never throws, never waits longer than `timeoutMs`. A connection
 * reused from the pool that turns out closed by ingest (or a proxy in front of it, which close idle
 * connections after a few seconds) is no sign that ingest is down: the envelope goes again at once
 * on a fresh connection. An envelope is safe to send twice; Sentry drops a repeated event id.
 * `headers` go with the envelope's own (a `content-encoding`, say).
 */
export async function postToIngest(
  url: string,
  body: string | Uint8Array,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<IngestResponse | IngestFailure> {
  const startedAt = Date.now();
  const first = await postOnce(url, body, headers, timeoutMs);
  if (!('staleConnection' in first)) return first;
  const second = await postOnce(url, body, headers, Math.max(timeoutMs - (Date.now() - startedAt), 1), false);
  return 'staleConnection' in second ? { failure: 'unreachable' } : second;
}

type Attempt = IngestResponse | IngestFailure | { staleConnection: true };

function postOnce(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  timeoutMs: number,
  mayReuse = true,
): Promise<Attempt> {
  const target = new URL(url);
  const isHttps = target.protocol === 'https:';
  const send = isHttps ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(
      target,
      {
        method: 'POST',
        // The retry takes a connection of its own: the pool may hold more that ingest closed.
        agent: mayReuse ? agents[isHttps ? 'https:' : 'http:'] : false,
        headers: {
          ...headers,
          'content-type': 'application/x-sentry-envelope',
          'content-length': Buffer.byteLength(body),
        },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', () => resolve({ failure: 'unreachable' }));
      },
    );
    // `timeout` fires on socket inactivity; the deadline below bounds the whole exchange.
    const deadline = setTimeout(() => request.destroy(new Error('timeout')), timeoutMs);
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.message === 'timeout') resolve({ failure: 'timeout' });
      else if (request.reusedSocket && STALE_CONNECTION_ERRORS.has(error.code ?? ''))
        resolve({ staleConnection: true });
      else resolve({ failure: 'unreachable' });
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
