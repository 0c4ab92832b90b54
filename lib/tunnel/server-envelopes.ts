import 'server-only';
import {
  type BaseTransportOptions,
  type Envelope,
  forEachEnvelopeItem,
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

/** Ingest did not take it and may later: it is down (5xx) or asked the client to wait (429). */
function isRefusedForNow(response: TransportMakeRequestResponse): boolean {
  const status = response.statusCode;
  return status !== undefined && (status >= 500 || status === 429);
}

function hasErrorEvent(envelope: Envelope): boolean {
  let found = false;
  forEachEnvelopeItem(envelope, (_item, type) => {
    found ||= type === 'event';
  });
  return found;
}

/**
 * Keeps an error envelope in the spool, its header naming the project as a browser's does (the
 * spool sends nothing that names another). Transactions and the rest are sampled or counted data,
 * and stay out of a spool whose room is for errors.
 */
function keep(envelope: Envelope): void {
  if (keeper === undefined || !hasErrorEvent(envelope)) return;
  const [header, items] = envelope;
  void keeper.spool.enqueue(encoded(serializeEnvelope([{ ...header, dsn: keeper.dsn }, items] as Envelope)));
}

function encoded(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

/**
 * The server SDK's transport, whose error envelopes are kept for later when ingest is unreachable
 * or refuses them for now, rather than lost (the SDK's own transport drops them).
 */
export function keepingErrorsForLater(
  makeTransport: (options: BaseTransportOptions) => Transport,
): (options: BaseTransportOptions) => Transport {
  return (options) => {
    const transport = makeTransport(options);
    return {
      ...transport,
      async send(envelope) {
        try {
          const response = await transport.send(envelope);
          if (isRefusedForNow(response)) keep(envelope);
          return response;
        } catch (error) {
          keep(envelope);
          throw error;
        }
      },
    };
  };
}
