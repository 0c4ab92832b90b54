import 'server-only';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export type IngestResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer };
export type IngestFailure = { failure: 'timeout' | 'unreachable' };

/** Kept-alive connections to ingest, a pool for each scheme. */
export type IngestConnections = { 'http:': HttpAgent; 'https:': HttpsAgent };

/**
 * A pool of its own for each part of the server that sends to ingest (the tunnel; the server's own
 * reports, ingest-transport.ts), so that neither waits for a connection behind the other's sends
 * to an ingest that is slow. node:http rather than fetch: Next patches the global fetch with its
 * cache and tracing, which slowed the tunnel (docs/reliability.md).
 */
export function ingestConnections(): IngestConnections {
  return {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
  };
}

const tunnelConnections = ingestConnections();

/** A header of ingest's answer, its values joined if it came more than once. */
export function headerOf(answer: IngestResponse, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Failures that mean only "this kept-alive connection was already closed by the other end". */
const STALE_CONNECTION_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

/**
 * POSTs an envelope to ingest; never throws, never waits longer than `timeoutMs`. A connection
 * reused from the pool that turns out closed by ingest (or a proxy in front of it, which close idle
 * connections after a few seconds) is no sign that ingest is down: the envelope goes again at once
 * on a fresh connection. An envelope is safe to send twice; Sentry drops a repeated event id.
 * `headers` go with the envelope's own (a `content-encoding`, say); `connections` default to the
 * tunnel's.
 */
export async function postToIngest(
  url: URL,
  body: Uint8Array,
  {
    timeoutMs,
    headers = {},
    connections = tunnelConnections,
  }: { timeoutMs: number; headers?: Record<string, string>; connections?: IngestConnections },
): Promise<IngestResponse | IngestFailure> {
  const startedAt = Date.now();
  const first = await postOnce(url, body, headers, timeoutMs, connections);
  if (!('staleConnection' in first)) return first;
  const second = await postOnce(url, body, headers, Math.max(timeoutMs - (Date.now() - startedAt), 1), false);
  return 'staleConnection' in second ? { failure: 'unreachable' } : second;
}

type Attempt = IngestResponse | IngestFailure | { staleConnection: true };

function postOnce(
  url: URL,
  body: Uint8Array,
  headers: Record<string, string>,
  timeoutMs: number,
  connections: IngestConnections | false,
): Promise<Attempt> {
  const isHttps = url.protocol === 'https:';
  const send = isHttps ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(
      url,
      {
        method: 'POST',
        // The retry takes a connection of its own: the pool may hold more that ingest closed.
        agent: connections === false ? false : connections[isHttps ? 'https:' : 'http:'],
        headers: {
          ...headers,
          'content-type': 'application/x-sentry-envelope',
          'content-length': body.byteLength,
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
