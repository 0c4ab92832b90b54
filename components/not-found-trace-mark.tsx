'use client';

import { useEffect } from 'react';
import { markTraceAsNotFound } from '@/lib/observability/browser-sdk';
import { NOT_FOUND_ATTRIBUTE } from '@/lib/observability/event-filters';

/**
 * Marks the browser's pageload or navigation trace as a not-found page, so the shared
 * `beforeSendTransaction` filter drops it: the browser cannot tell a 404 apart by the trace's name,
 * which for an unknown URL is just the URL.
 */
export function NotFoundTraceMark() {
  useEffect(() => markTraceAsNotFound(NOT_FOUND_ATTRIBUTE), []);
  return null;
}
