import { isExamplesEnabled } from '@/lib/env';
import { SentryExampleError } from '@/lib/examples/errors';

export function GET(): Response {
  if (!isExamplesEnabled) {
    return new Response('Not found', { status: 404 });
  }
  throw new SentryExampleError('by an API route');
}
