import 'server-only';
import { DEV_TUNNEL_ROUTE, TUNNEL_PATH } from '@/lib/tunnel/tunnel-path';

// What the load balancer and the container ask every few seconds (app/api/health, app/api/ready):
// one transaction each would bury a product's own traces and spend its quota, as Sentry's inbound
// filter for health checks keeps from happening on Sentry's side.
const PROBE_PATHS = ['/api/health', '/api/ready'];

/**
 * Whether a request's target (its path and query) is never traced: a health or readiness probe, or
 * the tunnel, whose requests carry the browser's own envelopes to Sentry (each would add a
 * transaction of its own to the browser's, as Sentry's SDK keeps from happening with its own tunnel
 * route). Under `npm start` server.mjs answers the tunnel before Next and decides the rest untraced
 * as they arrive (the dev tunnel's route answers 404 there); under `next dev` all reach Next as
 * routes, and the server's sampler refuses them. The path as probes send it, exactly: a spelling
 * Next redirects or resolves (`/api/health/`, dot segments) is an ordinary request, traced at the
 * rate.
 */
export function isUntracedTarget(target: string): boolean {
  const queryStart = target.indexOf('?');
  const path = queryStart === -1 ? target : target.slice(0, queryStart);
  return path === TUNNEL_PATH || path === DEV_TUNNEL_ROUTE || PROBE_PATHS.includes(path);
}
