'use client';

import { SentryExampleError } from '@/lib/examples/errors';

// Thrown as soon as this module is evaluated, while the page's scripts are still loading: long
// before the browser SDK is fetched. Like a third-party script failing at start-up.
if (typeof window !== 'undefined') {
  setTimeout(() => {
    throw new SentryExampleError('in the browser before the page finished loading');
  });
}

export function EarlyError() {
  return <p>This page threw an error while it was loading; it should arrive in Sentry all the same.</p>;
}
