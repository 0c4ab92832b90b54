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

/** POSTs an envelope to ingest; never throws, never waits longer than `timeoutMs`. */
export function postToIngest(
  url: string,
  body: Uint8Array,
  timeoutMs: number,
): Promise<IngestResponse | IngestFailure> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(
      target,
      {
        method: 'POST',
        agent: agents[target.protocol === 'https:' ? 'https:' : 'http:'],
        headers: { 'content-type': 'application/x-sentry-envelope', 'content-length': body.byteLength },
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
    request.on('error', (error) => resolve({ failure: error.message === 'timeout' ? 'timeout' : 'unreachable' }));
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
