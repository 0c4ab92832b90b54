import { type NextRequest, NextResponse } from 'next/server';
import { publicEnv } from '@/lib/public-env';
import { refuseBadActionRequest } from '@/lib/security/action-guard';
import { reloadIntoThisDeployment } from '@/lib/security/version-skew';

export async function proxy(request: NextRequest) {
  return (
    (await refuseBadActionRequest(request)) ??
    reloadIntoThisDeployment(request, publicEnv.deploymentId) ??
    NextResponse.next()
  );
}

// Only server-action requests pass through here; pages and assets pay nothing.
export const config = {
  matcher: [{ source: '/:path*', has: [{ type: 'header', key: 'next-action' }] }],
};
