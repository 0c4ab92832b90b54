import { isProduction } from '@/lib/env';
import { appServer } from '@/lib/server/seam.mjs';
import { textResponse } from '@/lib/server/text-response';

// The tunnel under `next dev`, reached through next.config.ts's rewrite of TUNNEL_PATH
// (lib/tunnel/tunnel-path.ts). In production server.mjs answers TUNNEL_PATH itself.
export const dynamic = 'force-dynamic';

export function POST(request: Request): Promise<Response> {
  if (isProduction) return Promise.resolve(textResponse(404, 'Not found'));
  return (
    appServer()?.handleTunnel(request) ?? Promise.resolve(textResponse(503, 'Starting up', { 'retry-after': '1' }))
  );
}

/**
 * Any other method gets the answer server.mjs gives it in production, rather than Next's empty 405
 * (or, for OPTIONS, its 204 listing methods the tunnel refuses).
 */
function notAllowed(): Response {
  if (isProduction) return textResponse(404, 'Not found');
  return textResponse(405, 'Method not allowed: the tunnel takes POST', { allow: 'POST' });
}

export {
  notAllowed as DELETE,
  notAllowed as GET,
  notAllowed as HEAD,
  notAllowed as OPTIONS,
  notAllowed as PATCH,
  notAllowed as PUT,
};
