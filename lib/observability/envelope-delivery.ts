import 'server-only';
import type { MessagePort } from 'node:worker_threads';
import {
  type BaseTransportOptions,
  type DataCategory,
  type EventDropReason,
  parseEnvelope,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';

/**
 * The part of the SDK's transport options a thread can be handed: data, no functions. `proxy`,
 * `caCerts` and `keepAlive` are the SDK's Node transport's own.
 */
export type DeliveryOptions = Pick<BaseTransportOptions, 'url' | 'headers' | 'bufferSize'> & {
  proxy?: string;
  caCerts?: string | Buffer | Array<string | Buffer>;
  keepAlive?: boolean;
};

/** What the server's thread asks of the delivery thread, in the order it asks. */
export type DeliveryRequest =
  | { kind: 'send'; id: number; body: string | Uint8Array }
  | { kind: 'flush'; id: number; timeout: number | undefined };

/** What the delivery thread answers, and what its transport dropped, as it drops it. */
export type DeliveryAnswer =
  | { kind: 'sent'; id: number; response: TransportMakeRequestResponse }
  | { kind: 'failed'; id: number; message: string }
  | { kind: 'flushed'; id: number; isFlushed: boolean }
  | { kind: 'dropped'; reason: EventDropReason; category: DataCategory; count: number | undefined };

/** A Buffer reaches another thread as a plain Uint8Array; Node's TLS options want Buffers. */
function asBuffers(caCerts: DeliveryOptions['caCerts']): DeliveryOptions['caCerts'] {
  const asBuffer = (cert: string | Uint8Array) => (typeof cert === 'string' ? cert : Buffer.from(cert));
  if (caCerts === undefined) return undefined;
  return Array.isArray(caCerts) ? caCerts.map(asBuffer) : asBuffer(caCerts);
}

/** A port the delivery thread reads requests from and answers on: its parentPort, or a test's. */
export type DeliveryPort = Pick<MessagePort, 'postMessage' | 'on'>;

/**
 * Serves the server thread's envelopes with the SDK's own transport (`makeTransport`), made once
 * from the options the server's client gave: the same proxy, keep-alive, compression, buffer, and
 * back-off when ingest rate-limits, as on the server's thread. An envelope arrives as the bytes the
 * SDK would send (serialized on the server's thread, which holds the event) and is read back here
 * for the transport, which writes it out again as it was: attachments keep their length and
 * bytes. What the transport drops (rate limits, a full buffer) is counted by the server's client.
 */
export function serveEnvelopeDelivery(
  port: DeliveryPort,
  options: DeliveryOptions,
  makeTransport: (options: BaseTransportOptions & DeliveryOptions) => Transport,
): void {
  const answer = (message: DeliveryAnswer) => port.postMessage(message);
  const transport = makeTransport({
    ...options,
    caCerts: asBuffers(options.caCerts),
    recordDroppedEvent: (reason, category, count) => answer({ kind: 'dropped', reason, category, count }),
  });
  port.on('message', (request: DeliveryRequest) => {
    if (request.kind === 'flush') {
      void Promise.resolve(transport.flush(request.timeout)).then((isFlushed) =>
        answer({ kind: 'flushed', id: request.id, isFlushed }),
      );
      return;
    }
    const { id } = request;
    // A body that cannot be read back fails its own send, as a network error would, and nothing else.
    void Promise.resolve()
      .then(() => transport.send(parseEnvelope(request.body)))
      .then(
        (response) => answer({ kind: 'sent', id, response }),
        (error: unknown) =>
          answer({ kind: 'failed', id, message: error instanceof Error ? error.message : String(error) }),
      );
  });
}
