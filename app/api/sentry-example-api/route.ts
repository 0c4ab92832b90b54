import { setTag } from '@sentry/core';
import { isExamplesEnabled } from '@/lib/env';
import { SentryExampleError } from '@/lib/examples/errors';

const LABEL_MAX_LENGTH = 32;

/**
 * Fails on purpose. With `?label=...` it first tags the request's scope, as a real handler tags
 * the user or tenant it serves, so the event shows that scope data stays with its own request.
 */
export async function GET(request: Request): Promise<Response> {
  if (!isExamplesEnabled) {
    return new Response('Not found', { status: 404 });
  }
  const label = new URL(request.url).searchParams.get('label')?.slice(0, LABEL_MAX_LENGTH);
  if (!label) {
    throw new SentryExampleError('by an API route');
  }
  setTag('example.label', label);
  // Stands in for the I/O a real handler awaits before it fails; other requests run meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 20));
  throw new SentryExampleError(`by an API route (label ${label})`);
}
