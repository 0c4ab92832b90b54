'use client';

import { useEffect } from 'react';
import { markNotFoundPath } from '@/lib/observability/browser-settings';

/**
 * Records that this path showed the not-found screen, so the browser's page-load or navigation
 * trace of it is dropped: the browser cannot tell a 404 apart by the trace's name, which for an
 * unknown URL is just the URL.
 */
export function NotFoundTraceMark() {
  useEffect(() => {
    markNotFoundPath(window.location.pathname);
  }, []);
  return null;
}
