import { test as base, type Request } from '@playwright/test';
import { SINK_PORT } from './servers';
import { EnvelopeSink } from './sink';

type Fixtures = {
  /** The local ingest, emptied before each test. */
  sink: EnvelopeSink;
  /** Every request the page made to the sink's port: the browser must never talk to ingest. */
  sinkRequestsFromBrowser: Request[];
};

export const test = base.extend<Fixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  sink: async ({}, use) => {
    const sink = new EnvelopeSink();
    await sink.setMode();
    await sink.clear();
    await use(sink);
    await sink.setMode();
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
