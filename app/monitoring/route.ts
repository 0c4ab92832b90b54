import { appServer } from '@/lib/server/seam.mjs';
import { textResponse } from '@/lib/server/text-response';

// Under `next dev`; in production server.mjs answers this path before Next routes it.
export function POST(request: Request): Promise<Response> {
  return (
    appServer()?.handleTunnel(request) ?? Promise.resolve(textResponse(503, 'Starting up', { 'retry-after': '1' }))
  );
}
