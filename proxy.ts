import type { NextRequest } from 'next/server';
import { publicEnv } from '@/lib/public-env';
import { refuseBadActionRequest } from '@/lib/security/action-guard';
import { reloadIntoThisDeployment } from '@/lib/security/version-skew';

// Nothing returned lets the request through, as Next's docs show. Types only from `next/server`: its
// runtime exports (NextResponse and all beside it) would make the proxy's bundle, which Next loads
// at a server's first request, about half as large again.
export async function proxy(request: NextRequest): Promise<Response | undefined> {
  return (await refuseBadActionRequest(request)) ?? reloadIntoThisDeployment(request, publicEnv.deploymentId);
}

// Only server-action requests pass through here, as Next tells them (lib/framework-internals.mjs):
// React's client's, by their header, and forms posted before hydration to a page, which Next takes
// by their multipart type alone. Route handlers (under /api/) take multipart uploads of their own,
// of any size and from anywhere they allow: those stay theirs. Pages and assets pay nothing.
export const config = {
  matcher: [
    { source: '/:path*', has: [{ type: 'header', key: 'next-action' }] },
    {
      source: '/((?!api/|_next/).*)',
      has: [{ type: 'header', key: 'content-type', value: 'multipart/form-data.*' }],
    },
  ],
};
