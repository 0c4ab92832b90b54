import { isProduction } from '@/lib/env';
import { appServer } from '@/lib/server/seam.mjs';
import { textResponse } from '@/lib/server/text-response';

// The tunnel under `next dev`, reached through next.config.ts's rewrite of TUNNEL_PATH
// (lib/tunnel/tunnel-path.ts). In production server.mjs answers TUNNEL_PATH itself.
export const dynamic = 'force-dynamic';

/**
 * Every method goes to the tunnel, which takes POST alone and tells any other so, as it does under
 * server.mjs (rather than Next's empty 405, or for OPTIONS its 204 listing methods it refuses).
 */
function tunnel(request: Request): Promise<Response> {
  if (isProduction) return Promise.resolve(textResponse(404, 'Not found'));
  return (
    appServer()?.handleTunnel(request) ?? Promise.resolve(textResponse(503, 'Starting up', { 'retry-after': '1' }))
  );
}

export {
  tunnel as DELETE,
  tunnel as GET,
  tunnel as HEAD,
  tunnel as OPTIONS,
  tunnel as PATCH,
  tunnel as POST,
  tunnel as PUT,
};
