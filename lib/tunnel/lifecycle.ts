import 'server-only';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dsnToString, makeDsn } from '@sentry/core';
import { browserDsn, env, serverDsn } from '@/lib/env';
import { clientAddressOf } from '@/lib/server/client-address';
import { RateLimiter } from '@/lib/server/rate-limiter';
import { withSecurityHeaders } from '@/lib/server/refusal';
import type { TunnelRequest } from '@/lib/server/seam.mjs';
import { EnvelopeSpool } from '@/lib/tunnel/envelope-spool';
import { keepServerErrorsIn } from '@/lib/tunnel/server-envelopes';
import { forwardEnvelope, ingestDelivery, type TunnelOptions } from '@/lib/tunnel/tunnel';

// Relay accepts events up to 30 days old (`max_secs_in_past`); older ones are not worth sending.
const MAX_ENVELOPE_AGE_MS = 30 * 24 * 60 * 60 * 1_000;
const RATE_LIMIT_WINDOW_MS = 60_000;
// An envelope is at most 1 MiB (SENTRY_TUNNEL_MAX_BYTES): 10 s is 100 KB/s, a slow mobile link. A
// client slower than that would otherwise hold its connection until Node's own request timeout.
const BODY_DEADLINE_MS = 10_000;

/**
 * At start-up: a spool folder that cannot be created or written stops the server, naming it,
 * rather than answer 503 to every envelope the first time ingest is down.
 */
function assertWritable(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `start-up-check-${process.pid}.tmp`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`SENTRY_TUNNEL_SPOOL_DIR: cannot write to ${dir} (${code}); give the server a writable folder`);
  }
}

export type Tunnel = {
  /** Answers one browser's POST of an envelope. */
  handle(request: TunnelRequest): Promise<Response>;
  /**
   * Stops delivering: waits up to `timeoutMs` for the envelopes in flight, and what is still
   * pending stays on disk for the next start.
   */
  stop(timeoutMs: number): Promise<void>;
  /** Why the spool cannot keep envelopes now (an error code), or undefined. */
  spoolProblem(): string | undefined;
};

/**
 * One folder per DSN under the system's temporary folder: apps on one machine (or one app after a
 * key rotation) never meet each other's envelopes there.
 */
function defaultSpoolDir(dsn: string): string {
  return join(tmpdir(), `sentry-tunnel-spool-${createHash('sha256').update(dsn).digest('hex').slice(0, 16)}`);
}

/** A DSN as the SDKs write it, so two spellings of one project compare equal. */
function normalizedDsn(dsn: string | undefined): string | undefined {
  const components = dsn === undefined ? undefined : makeDsn(dsn);
  return components === undefined ? undefined : dsnToString(components);
}

function tunnelOptions(): TunnelOptions {
  const dsn = browserDsn;
  return {
    dsn,
    maxBodyBytes: env.SENTRY_TUNNEL_MAX_BYTES,
    bodyDeadlineMs: BODY_DEADLINE_MS,
    upstreamTimeoutMs: env.SENTRY_TUNNEL_TIMEOUT_MS,
    limiter: new RateLimiter(env.SENTRY_TUNNEL_RATE_LIMIT, RATE_LIMIT_WINDOW_MS),
    spool:
      dsn === undefined
        ? undefined
        : new EnvelopeSpool({
            dir: env.SENTRY_TUNNEL_SPOOL_DIR ?? defaultSpoolDir(dsn),
            maxBytes: env.SENTRY_TUNNEL_SPOOL_MAX_BYTES,
            maxAgeMs: MAX_ENVELOPE_AGE_MS,
            deliver: ingestDelivery(dsn, env.SENTRY_TUNNEL_TIMEOUT_MS),
            // A claim is held for one delivery, which ingest's timeout bounds; a minute's margin.
            abandonedAfterMs: env.SENTRY_TUNNEL_TIMEOUT_MS + 60_000,
          }),
  };
}

/**
 * At start-up (the instrumentation hook, once per process): the tunnel, its spool resuming what an
 * earlier run kept. server.mjs answers POST TUNNEL_PATH with it directly, without Next's routing
 * (docs/reliability.md); under `next dev`, app/api/dev-tunnel/route.ts does.
 */
export function startTunnel(): Tunnel {
  const options = tunnelOptions();
  const { spool } = options;
  if (spool) assertWritable(spool.dir);
  spool?.start();
  // The server's own errors wait there too while ingest is down, when they go to the same project.
  const ownDsn = normalizedDsn(options.dsn);
  if (spool && ownDsn !== undefined && ownDsn === normalizedDsn(serverDsn)) keepServerErrorsIn(spool, ownDsn);
  return {
    async handle(request) {
      return withSecurityHeaders(await forwardEnvelope(request, options, clientAddressOf(request.headers)));
    },
    async stop(timeoutMs) {
      await spool?.close(timeoutMs);
    },
    spoolProblem: () => spool?.writeProblem,
  };
}
