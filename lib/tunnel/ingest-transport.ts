import 'server-only';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { type BaseTransportOptions, createTransport, type Transport } from '@sentry/core';
import { postToIngest } from '@/lib/tunnel/ingest-client';

const gzipped = promisify(gzip);
// Larger bodies go compressed, as with Sentry's own Node transport.
const GZIP_THRESHOLD_BYTES = 32 * 1024;

function firstHeaderValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/**
 * The server SDK's transport, built with the SDK's documented `createTransport` on the tunnel's
 * ingest client (ingest-client.ts): the process keeps one pool of connections to ingest, a kept
 * connection found closed is retried on a fresh one, and every send is answered within
 * `timeoutMs` (the SDK's own transport waits on a hung ingest for as long as it hangs). It writes
 * each envelope whole, with its length, where the SDK's pipes it through a stream: a sampled
 * request's transaction costs the request thread less (docs/performance.md). It knows no proxy:
 * with one set, the server keeps the SDK's transport (sentry.server.config.ts). A send that gets
 * no answer fails, as the SDK's does, which counts it as a `network_error`.
 */
export function ingestTransport(timeoutMs: number): (options: BaseTransportOptions) => Transport {
  return (options) =>
    createTransport(options, async ({ body }) => {
      const isLarge = Buffer.byteLength(body) > GZIP_THRESHOLD_BYTES;
      const answer = await postToIngest(options.url, isLarge ? await gzipped(body) : body, timeoutMs, {
        ...options.headers,
        ...(isLarge ? { 'content-encoding': 'gzip' } : {}),
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
          'retry-after': firstHeaderValue(answer.headers['retry-after']),
          'x-sentry-rate-limits': firstHeaderValue(answer.headers['x-sentry-rate-limits']),
        },
      };
    });
}
