import 'server-only';
import { Worker } from 'node:worker_threads';
import {
  type BaseTransportOptions,
  type Envelope,
  serializeEnvelope,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import type { DeliveryAnswer, DeliveryOptions, DeliveryRequest } from '@/lib/observability/envelope-delivery';

/** What the server's thread needs of the delivery thread: a Node Worker has it, and so does a test's stand-in. */
export type DeliveryThread = {
  postMessage(request: DeliveryRequest): void;
  on(event: 'message', listener: (answer: DeliveryAnswer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  ref(): void;
  unref(): void;
};

type TransportOptions = BaseTransportOptions & Omit<DeliveryOptions, keyof BaseTransportOptions>;
type MakeTransport = (options: TransportOptions) => Transport;

function startDeliveryThread(options: DeliveryOptions): DeliveryThread {
  return new Worker(new URL('./envelope-delivery.worker.ts', import.meta.url), { workerData: options });
}

type PendingSend = { resolve: (response: TransportMakeRequestResponse) => void; reject: (error: Error) => void };

/**
 * The SDK's transport (`makeTransport`) run on a thread of its own (lib/observability/envelope-delivery.ts):
 * the request thread serializes an envelope and hands it over, and the HTTP exchange with ingest
 * happens there. With tracing, each sampled request sends a transaction, and that exchange was
 * the largest part of what a sampled request cost the thread that serves pages (docs/performance.md).
 *
 * The thread starts with the first envelope, so a server that sends none never has one, and it
 * keeps the process alive only while an envelope is on its way, as the SDK's socket would. Should
 * it stop, what it was sending fails as a network error does (the SDK counts the loss, and a
 * server error goes to the spool, lib/tunnel/server-envelopes.ts), and the next envelope starts
 * another. One that stops before it ever answered could not start at all: from then on the
 * envelopes go out on the server's own thread, as the SDK sends them, rather than be lost.
 */
export function deliveringOffThread(
  makeTransport: MakeTransport,
  start: (options: DeliveryOptions) => DeliveryThread = startDeliveryThread,
): MakeTransport {
  return (options) => {
    const { url, headers, bufferSize, proxy, caCerts, keepAlive } = options;
    const deliveryOptions: DeliveryOptions = { url, headers, bufferSize, proxy, caCerts, keepAlive };
    let thread: DeliveryThread | undefined;
    let hasAnswered = false;
    let onThisThread: Transport | undefined;
    let nextId = 0;
    const sends = new Map<number, PendingSend>();
    const flushes = new Map<number, (isFlushed: boolean) => void>();
    const outstanding = () => sends.size + flushes.size;

    const stopped = (stoppedThread: DeliveryThread, reason: string) => {
      if (thread !== stoppedThread) return;
      thread = undefined;
      if (!hasAnswered && onThisThread === undefined) {
        console.error(
          `Sentry's envelopes now go out on the server's own thread: the delivery thread stopped (${reason})`,
        );
        onThisThread = makeTransport(options);
      }
      const lost = new Error(`the envelope delivery thread stopped (${reason})`);
      for (const { reject } of sends.values()) reject(lost);
      for (const resolve of flushes.values()) resolve(false);
      sends.clear();
      flushes.clear();
    };
    const answered = (answer: DeliveryAnswer) => {
      if (answer.kind === 'dropped') {
        options.recordDroppedEvent(answer.reason, answer.category, answer.count);
        return;
      }
      hasAnswered = true;
      if (answer.kind === 'flushed') {
        flushes.get(answer.id)?.(answer.isFlushed);
        flushes.delete(answer.id);
      } else {
        const pending = sends.get(answer.id);
        sends.delete(answer.id);
        if (answer.kind === 'sent') pending?.resolve(answer.response);
        else pending?.reject(new Error(answer.message));
      }
      if (outstanding() === 0) thread?.unref();
    };
    const running = (): DeliveryThread => {
      if (thread !== undefined) return thread;
      const started = start(deliveryOptions);
      hasAnswered = false;
      started.on('message', answered);
      started.on('error', (error) => stopped(started, error.message));
      started.on('exit', (code) => stopped(started, `exit code ${code}`));
      thread = started;
      return started;
    };
    /** Hands a request over; the thread holds the process from the first outstanding one on. */
    const ask = (target: DeliveryThread, request: DeliveryRequest) => {
      if (outstanding() === 1) target.ref();
      target.postMessage(request);
    };

    return {
      send(envelope: Envelope) {
        if (onThisThread !== undefined) return onThisThread.send(envelope);
        return new Promise<TransportMakeRequestResponse>((resolve, reject) => {
          const target = running();
          const id = nextId++;
          sends.set(id, { resolve, reject });
          ask(target, { kind: 'send', id, body: serializeEnvelope(envelope) });
        });
      },
      flush(timeout) {
        if (thread === undefined) return onThisThread?.flush(timeout) ?? Promise.resolve(true);
        const target = thread;
        return new Promise<boolean>((resolve) => {
          const id = nextId++;
          flushes.set(id, resolve);
          ask(target, { kind: 'flush', id, timeout });
        });
      },
    };
  };
}
