import { isProduction } from '@/lib/env';
import { appServer } from '@/lib/server/seam.mjs';
import { textResponse } from '@/lib/server/text-response';

// The tunnel under `next dev`, reached through next.config.ts's rewrite of TUNNEL_PATH
// (lib/tunnel/tunnel-path.ts). In production server.mjs answers TUNNEL_PATH itself.
export function POST(request: Request): Promise<Response> {
  if (isProduction) return Promise.resolve(textResponse(404, 'Not found'));
  return (
    appServer()?.handleTunnel(request) ?? Promise.resolve(textResponse(503, 'Starting up', { 'retry-after': '1' }))
  );
}
