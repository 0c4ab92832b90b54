import { test as base, type Request } from '@playwright/test';
import { EnvelopeSink } from './sink';
import { SINK_PORT } from './servers';

type Fixtures = {
  /** The local ingest, emptied before each test. */
  sink: EnvelopeSink;
  /** Every request the page made to the sink's port: the browser must never talk to ingest. */
  sinkRequestsFromBrowser: Request[];
};

export const test = base.extend<Fixtures>({
  sink: async ({}, use) => {
    const sink = new EnvelopeSink();
    await sink.clear();
    await use(sink);
  },
  sinkRequestsFromBrowser: async ({ context }, use) => {
    const seen: Request[] = [];
    context.on('request', (request) => {
      if (new URL(request.url()).port === String(SINK_PORT) && !request.url().endsWith('.js')) {
        seen.push(request);
      }
    });
    await use(seen);
  },
});

export { expect } from '@playwright/test';
