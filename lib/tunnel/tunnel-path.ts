// Relative, not `@/`: lib/env.ts imports this module for next.config.ts, whose loader knows no
// path aliases.
import { publicVariables } from '../public-env';

export const DEFAULT_TUNNEL_PATH = '/monitoring';

/**
 * The same-origin path the browser posts its envelopes to: SENTRY_TUNNEL_PATH as the build fixed
 * it (next.config.ts passes on the value lib/env.ts validated). Content blockers list common tunnel
 * paths, so a deployer may choose another. Everything that spells the path reads it here; server.mjs
 * is handed it through lib/server/seam.mjs.
 */
export const TUNNEL_PATH = publicVariables.SENTRY_TUNNEL_PATH ?? DEFAULT_TUNNEL_PATH;

/**
 * Under `next dev` (no server.mjs) next.config.ts rewrites TUNNEL_PATH to this route; in production
 * server.mjs answers TUNNEL_PATH before Next routes anything, and this route is not the tunnel.
 */
export const DEV_TUNNEL_ROUTE = '/api/dev-tunnel';
