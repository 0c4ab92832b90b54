import 'server-only';
import { publicEnv } from '@/lib/public-env';
import packageJson from '@/package.json';

// Set by server.mjs the moment it receives SIGTERM or SIGINT, before it stops accepting.
const DRAINING = Symbol.for('app.lifecycle.draining');

const noStore = { 'cache-control': 'no-store' };

/** Liveness: the process answers. Says which build answers, so a rollout can be watched. */
export function livenessResponse(): Response {
  return Response.json(
    {
      status: 'ok',
      version: packageJson.version,
      release: publicEnv.release ?? null,
      deploymentId: publicEnv.deploymentId ?? null,
    },
    { headers: noStore },
  );
}

/** Readiness: 503 once shutdown has begun, so a load balancer drains this instance first. */
export function readinessResponse(): Response {
  const isDraining = (globalThis as Record<symbol, unknown>)[DRAINING] === true;
  return Response.json(
    { status: isDraining ? 'draining' : 'ready' },
    { status: isDraining ? 503 : 200, headers: noStore },
  );
}
