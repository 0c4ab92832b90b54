import { type NextRequest, NextResponse } from 'next/server';
import { refuseBadActionRequest } from '@/lib/security/action-guard';

export async function proxy(request: NextRequest) {
  return (await refuseBadActionRequest(request)) ?? NextResponse.next();
}

// Only server-action requests pass through here; pages and assets pay nothing.
export const config = {
  matcher: [{ source: '/:path*', has: [{ type: 'header', key: 'next-action' }] }],
};
