import 'server-only';
import { AsyncResource } from 'node:async_hooks';
import type { Client } from '@sentry/core';

/** How long a request's finished trace waits for the ones that finish after it. */
const BATCH_DELAY_MS = 500;
/** Half the SDK transport's buffer (64 envelopes on their way): a batch alone never overflows it. */
const MAX_BATCH = 32;

/**
 * Hands what `send` takes on in batches: when the first of a batch has waited `delayMs`, when
 * `maxBatch` wait, and at once when the client flushes (`Sentry.flush`, the server's shutdown),
 * before the SDK waits for its transport. Sent one by one as each sampled request ended, a
 * transaction's code (building the event, the envelope, the HTTP request) ran between pages, cold
 * each time, and made the pages served beside it slower too; in batches a traced server serves
 * more (docs/performance.md). A batch runs outside the context of the request that started it: it
 * holds several requests' traces. `send` must not throw.
 */
export function inBatches<T>(
  send: (item: T) => void,
  client: Pick<Client, 'on'>,
  { delayMs = BATCH_DELAY_MS, maxBatch = MAX_BATCH } = {},
): (item: T) => void {
  let batch: T[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Bound here, where tracing starts, before any request.
  const sendBatch = AsyncResource.bind(() => {
    clearTimeout(timer);
    timer = undefined;
    const due = batch;
    batch = [];
    for (const item of due) send(item);
  });
  client.on('flush', sendBatch);
  return (item) => {
    batch.push(item);
    if (batch.length >= maxBatch) sendBatch();
    // Unref'd: a batch waiting does not keep the process alive; the shutdown's flush sends it.
    else timer ??= setTimeout(sendBatch, delayMs).unref();
  };
}
