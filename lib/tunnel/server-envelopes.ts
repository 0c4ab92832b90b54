import 'server-only';
import {
  type BaseTransportOptions,
  type Envelope,
  envelopeContainsItemType,
  parseRetryAfterHeader,
  serializeEnvelope,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import type { EnvelopeSpool } from '@/lib/tunnel/envelope-spool';

/** Where the server's own error envelopes wait while ingest cannot take them. */
type Keeper = { spool: EnvelopeSpool; dsn: string };

let keeper: Keeper | undefined;

/**
 * From start-up on (lib/tunnel/lifecycle.ts), the server's error envelopes that ingest could not
 * take go to the tunnel's spool, which delivers them once it is back, as it does the browser's.
 * `dsn`, as dsnToString writes it, must be the server's and the spool's: the spool delivers
 * nothing to any other project.
 */
export function keepServerErrorsIn(spool: EnvelopeSpool, dsn: string): void {
  keeper = { spool, dsn };
}

/**
 * Ingest is down for now (5xx). A 429 is not: it asks the SDK to back off, which it does, and the
 * spool would drop the envelope all the same (lib/tunnel/tunnel.ts, ingestDelivery).
 */
function isIngestDown(response: TransportMakeRequestResponse): boolean {
  return response.statusCode !== undefined && response.statusCode >= 500;
}

function encoded(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

/**
 * Keeps an error envelope in the spool, its header naming the project as a browser's does (the
 * spool sends nothing that names another), without the time it was first sent: ingest would read
 * a delivery hours later as a client clock that is off. The SDK has already counted the envelope
 * as lost in its client report; that count is not taken back. Whether it was kept.
 */
async function keep(envelope: Envelope): Promise<boolean> {
  if (keeper === undefined) return false;
  const [header, items] = envelope;
  const { sent_at: _sentAt, ...rest } = header;
  const kept = await keeper.spool.enqueue(
    encoded(serializeEnvelope([{ ...rest, dsn: keeper.dsn }, items] as Envelope)),
  );
  if (kept !== 'queued') {
    console.error(`A server error ingest could not take was lost: the tunnel's spool is ${kept}`);
  }
  return kept === 'queued';
}

/** Each transport's way to keep the errors still on their way (keepUnansweredErrors). */
const unansweredKeepers = new Set<() => Promise<boolean>>();

/**
 * At shutdown, once the SDK's flush is over: keeps the error envelopes ingest has not answered
 * yet (a hung ingest), which the exiting process would take along. Ingest drops a second copy of
 * an event it took after all, by its id. Whether every one was kept.
 */
export async function keepUnansweredErrors(): Promise<boolean> {
  return (await Promise.all([...unansweredKeepers].map((keepUnanswered) => keepUnanswered()))).every(Boolean);
}

/**
 * The server SDK's transport, whose error envelopes are kept for later when ingest is unreachable
 * or down, rather than lost (the SDK's own transport drops them); transactions and the rest are
 * sampled or counted data, and stay out of a spool whose room is for errors. The SDK reads a 5xx's
 * `Retry-After` as a limit on everything it sends, and until it expires skips each envelope,
 * answering no status: an error skipped so is kept as one ingest refused would be. Its flush waits
 * for those writes too, so a shutdown that flushes the SDK before it stops the spool keeps them.
 */
export function keepingErrorsForLater(
  makeTransport: (options: BaseTransportOptions) => Transport,
): (options: BaseTransportOptions) => Transport {
  return (options) => {
    const transport = makeTransport(options);
    const keeping = new Set<Promise<boolean>>();
    // Error envelopes sent and not yet answered, nor kept.
    const unanswered = new Set<Envelope>();
    // Until when the SDK holds everything back for a 5xx's Retry-After, as it reckons it.
    let heldBackUntil = 0;
    const keepLater = (envelope: Envelope) => {
      unanswered.delete(envelope);
      const write = keep(envelope)
        .catch((error: unknown) => {
          console.error('Keeping a server error for later failed:', error);
          return false;
        })
        .finally(() => keeping.delete(write));
      keeping.add(write);
      return write;
    };
    // What ingest has not answered, and what is being kept already (an error ingest refused as the
    // flush ended): whether all of it is in the spool before the spool stops.
    unansweredKeepers.add(async () => {
      for (const envelope of unanswered) keepLater(envelope);
      return (await Promise.all(keeping)).every(Boolean);
    });
    return {
      async send(envelope) {
        if (envelopeContainsItemType(envelope, ['event'])) unanswered.add(envelope);
        try {
          const response = await transport.send(envelope);
          const isDown = isIngestDown(response);
          const retryAfter = response.headers?.['retry-after'];
          if (isDown && retryAfter) heldBackUntil = Date.now() + parseRetryAfterHeader(retryAfter);
          const isHeldBack = response.statusCode === undefined && Date.now() < heldBackUntil;
          if ((isDown || isHeldBack) && unanswered.has(envelope)) keepLater(envelope);
          return response;
        } catch (error) {
          if (unanswered.has(envelope)) keepLater(envelope);
          throw error;
        } finally {
          unanswered.delete(envelope);
        }
      },
      async flush(timeout) {
        const isFlushed = await transport.flush(timeout);
        await Promise.all(keeping);
        return isFlushed;
      },
    };
  };
}
