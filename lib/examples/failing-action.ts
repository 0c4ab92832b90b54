'use server';

import { isExamplesEnabled } from '@/lib/env';
import { SentryExampleError } from '@/lib/examples/errors';

export async function runFailingServerAction(): Promise<void> {
  // Actions are reachable by POST whatever page is served, so the switch is checked here too.
  if (!isExamplesEnabled) {
    return;
  }
  throw new SentryExampleError('by a server action');
}
