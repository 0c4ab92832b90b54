import { handleTunnelRequest } from '@/lib/observability/tunnel-instance';

export function POST(request: Request): Promise<Response> {
  return handleTunnelRequest(request);
}
