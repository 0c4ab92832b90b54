import 'server-only';
import { publicEnv } from '@/lib/public-env';
import { appServer, isDraining } from '@/lib/server/seam.mjs';
import packageJson from '@/package.json';

const noStore = { 'cache-control': 'no-store' };

/**
 * Liveness: the process answers. Says which build answers, so a rollout can be watched, and whether
 * the tunnel's spool can keep envelopes (a full or read-only disk is for an operator to mend; a
 * restart would not, so the status stays 200).
 */
export function livenessResponse(): Response {
  const spoolProblem = appServer()?.spoolProblem();
  return Response.json(
    {
      status: 'ok',
      version: packageJson.version,
      release: publicEnv.release ?? null,
      deploymentId: publicEnv.deploymentId ?? null,
      spool: spoolProblem === undefined ? 'ok' : `cannot write (${spoolProblem})`,
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
