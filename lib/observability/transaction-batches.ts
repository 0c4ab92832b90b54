import 'server-only';
import { AsyncResource } from 'node:async_hooks';
import { type Client, captureException } from '@sentry/core';

/** How long a request's finished trace waits for the ones that finish after it. */
const BATCH_DELAY_MS = 500;
/**
 * A batch sent at once adds at most this many to what is on its way. Sent in one go, it holds up
 * the requests being served for as long as it takes: batches of 32 measured no faster, and a p99
 * of traced `/status` over its budget (docs/performance.md, runs 37 to 39).
 */
const MAX_BATCH = 16;
/**
 * How many envelopes the server's transport holds on their way (`bufferSize`, set in
 * sentry.server.config.ts): the SDK's default, 64, and room for a batch on top, so that a batch does not by itself turn
 * away what was already there. Errors share it: an ingest that hangs fills it either way.
 */
export const TRANSPORT_BUFFER_SIZE = 64 + MAX_BATCH;
/**
 * After a flush begins, each trace goes at once for this long: the requests the server's shutdown
 * cuts end their traces in the next few ticks, before the SDK takes stock of what to wait for.
 * Short, as the SDK flushes after each request error too.
 */
const AT_ONCE_AFTER_FLUSH_MS = 50;

/**
 * Hands what `send` takes on in batches: when the first of a batch has waited `delayMs`, when
 * `maxBatch` wait, and at once when the client flushes (the server's shutdown, and the SDK's own
 * flush after each request error), before the SDK waits for its transport. Sent one by one as
 * each sampled request ended, a transaction's code (the event, its envelope, the HTTP request) ran
 * between pages, cold each time, and the pages served beside it ran slower too; in batches a
 * traced server serves more (docs/performance.md, runs 37 to 40). A batch runs outside the context
 * of the request that started it: it holds several requests' traces.
 */
export function inBatches<T>(
  send: (item: T) => void,
  client: Pick<Client, 'on'>,
  { delayMs = BATCH_DELAY_MS, maxBatch = MAX_BATCH } = {},
): (item: T) => void {
  let batch: T[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let atOnceUntil = Number.NEGATIVE_INFINITY;
  // Bound here, where the server's tracing starts, before any request.
  const sendBatch = AsyncResource.bind(() => {
    clearTimeout(timer);
    timer = undefined;
    const due = batch;
    batch = [];
    for (const item of due) {
      // One that fails does not hold back the rest, nor reach the timer or the flush that sent it.
      try {
        send(item);
      } catch (error) {
        captureException(error);
      }
    }
  });
  client.on('flush', () => {
    atOnceUntil = performance.now() + AT_ONCE_AFTER_FLUSH_MS;
    sendBatch();
  });
  return (item) => {
    batch.push(item);
    if (batch.length >= maxBatch || performance.now() < atOnceUntil) sendBatch();
    // Unref'd: a batch waiting does not keep the process alive; the shutdown's flush sends it.
    else timer ??= setTimeout(sendBatch, delayMs).unref();
  };
}
