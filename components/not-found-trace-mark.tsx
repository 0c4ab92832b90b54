'use client';

import { getActiveSpan, getRootSpan } from '@sentry/nextjs';
import { useEffect } from 'react';
import { NOT_FOUND_ATTRIBUTE } from '@/lib/observability/event-filters';

/**
 * Marks the browser's pageload or navigation trace as a not-found page, so the shared
 * `beforeSendTransaction` filter drops it: the browser cannot tell a 404 apart by the trace's name,
 * which for an unknown URL is just the URL.
 */
export function NotFoundTraceMark() {
  useEffect(() => {
    const span = getActiveSpan();
    if (span) {
      getRootSpan(span).setAttribute(NOT_FOUND_ATTRIBUTE, true);
    }
  }, []);
  return null;
}
