import 'server-only';
import { publicEnv } from '@/lib/public-env';
import { isDraining } from '@/lib/server/seam.mjs';
import packageJson from '@/package.json';

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
  // Set by server.mjs the moment it receives SIGTERM or SIGINT, before it stops accepting.
  const draining = isDraining();
  return Response.json({ status: draining ? 'draining' : 'ready' }, { status: draining ? 503 : 200, headers: noStore });
}
