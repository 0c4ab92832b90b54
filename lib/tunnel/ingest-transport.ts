import 'server-only';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { type BaseTransportOptions, createTransport, suppressTracing, type Transport } from '@sentry/core';
import { headerOf, ingestConnections, postToIngest } from '@/lib/tunnel/ingest-client';

const gzipped = promisify(gzip);
// Larger bodies go compressed, at the threshold of Sentry's own Node transport.
const GZIP_THRESHOLD_BYTES = 32 * 1024;

/** The proxy settings Sentry's Node transport reads, by its names. */
export type ProxySettings = { http_proxy?: string; https_proxy?: string; no_proxy?: string };

/**
 * Whether Sentry's Node transport would send to `url` through a proxy, by its own rule:
 * `https_proxy` for an https URL, else `http_proxy`, unless an entry of `no_proxy` ends its host
 * (with or without the port; an empty one ends every host).
 */
export function sendsThroughProxy(url: string, { http_proxy, https_proxy, no_proxy }: ProxySettings): boolean {
  const target = new URL(url);
  const proxy = (target.protocol === 'https:' ? https_proxy : undefined) || http_proxy;
  const isExempt = no_proxy
    ?.split(',')
    .some((exemption) => target.host.endsWith(exemption) || target.hostname.endsWith(exemption));
  return Boolean(proxy) && !isExempt;
}

/**
 * The server SDK's transport, built with the SDK's documented `createTransport` on the tunnel's
 * ingest client (ingest-client.ts), with a pool of connections of its own: a kept connection found
 * closed is retried on a fresh one, and every send is answered within `timeoutMs` (the SDK's own
 * transport waits on a hung ingest for as long as it hangs). It writes each envelope whole, with
 * its length, where the SDK's pipes it through a stream: a sampled request's transaction costs the
 * request thread less (docs/performance.md). As the SDK's, it sends with tracing suppressed, so
 * that no integration (the `Http` one `next dev` registers) records its requests. It knows no
 * proxy, nor the SDK transport's other options (`caCerts`, `httpModule`): with a proxy for ingest,
 * the server keeps the SDK's transport (sentry.server.config.ts). A send that cannot connect, or
 * gets no answer within `timeoutMs`, rejects: `createTransport` counts it as a `network_error`,
 * and lib/tunnel/server-envelopes.ts keeps an error envelope for later.
 */
export function ingestTransport(timeoutMs: number): (options: BaseTransportOptions) => Transport {
  return (options) => {
    const connections = ingestConnections();
    const url = new URL(options.url);
    return createTransport(options, ({ body }) =>
      suppressTracing(async () => {
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        const isLarge = bytes.byteLength > GZIP_THRESHOLD_BYTES;
        const answer = await postToIngest(url, isLarge ? await gzipped(bytes) : bytes, {
          timeoutMs,
          headers: { ...options.headers, ...(isLarge ? { 'content-encoding': 'gzip' } : {}) },
          connections,
        });
        if ('failure' in answer) {
          throw new Error(
            answer.failure === 'timeout'
              ? `Sentry's ingest did not answer within ${timeoutMs} ms`
              : "Sentry's ingest is unreachable",
          );
        }
        return {
          statusCode: answer.status,
          headers: {
            'retry-after': headerOf(answer, 'retry-after') ?? null,
            'x-sentry-rate-limits': headerOf(answer, 'x-sentry-rate-limits') ?? null,
          },
        };
      }),
    );
  };
}
