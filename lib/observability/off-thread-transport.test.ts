import { EventEmitter, once } from 'node:events';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageChannel } from 'node:worker_threads';
import {
  addItemToEnvelope,
  createAttachmentEnvelopeItem,
  createEventEnvelope,
  type Envelope,
  type Event,
  makeDsn,
  parseEnvelope,
  serializeEnvelope,
} from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { type DeliveryOptions, serveEnvelopeDelivery } from '@/lib/observability/envelope-delivery';
import { type DeliveryThread, deliveringOffThread } from '@/lib/observability/off-thread-transport';

// A real ingest stand-in on loopback: it records each POST's bytes, and answers as `answer` says.
type Answer = { status: number; headers?: OutgoingHttpHeaders; delayMs?: number };
let answer: Answer = { status: 200 };
const received: Buffer[] = [];
const ingest = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push(Buffer.concat(chunks));
    const { status, headers, delayMs = 0 } = answer;
    setTimeout(() => response.writeHead(status, headers).end('{}'), delayMs);
  });
});
let dsn = '';
let url = '';

beforeAll(async () => {
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  dsn = `http://key@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`;
  url = `http://127.0.0.1:${(ingest.address() as AddressInfo).port}/api/1/envelope/?sentry_key=key`;
});
afterAll(() => ingest.close());
beforeEach(() => {
  answer = { status: 200 };
  received.length = 0;
});

/**
 * The delivery thread's side as the worker runs it (the SDK's Node transport, on the other end of a
 * message channel, with its options structured-cloned as a Worker's data is), in this thread: a
 * test cannot start the bundled worker. A thread can be told to stop, as a crashed one would, or
 * to fail to start. `holds` counts the process holds it was given and not released.
 */
type ThreadStandIn = DeliveryThread & { stop(): void; holds: number };
function threadsOnChannels(failToStart = false) {
  const started: ThreadStandIn[] = [];
  const start = (options: DeliveryOptions): DeliveryThread => {
    const { port1, port2 } = new MessageChannel();
    const events = new EventEmitter();
    if (failToStart) setImmediate(() => events.emit('error', new Error('Cannot find module')));
    else serveEnvelopeDelivery(port2, structuredClone(options), Sentry.makeNodeTransport);
    const thread: ThreadStandIn = {
      holds: 0,
      postMessage: (request) => port1.postMessage(request),
      // biome-ignore lint/suspicious/noExplicitAny: one listener stands for the three DeliveryThread names
      on: (event: string, listener: (value: any) => void) =>
        event === 'message' ? port1.on('message', listener) : events.on(event, listener),
      ref: () => {
        thread.holds += 1;
      },
      unref: () => {
        thread.holds = Math.max(0, thread.holds - 1);
      },
      stop: () => {
        port1.close();
        port2.close();
        events.emit('exit', 1);
      },
    };
    started.push(thread);
    return thread;
  };
  return { started, start };
}

const errorEnvelope = (message: string) =>
  createEventEnvelope({ event_id: crypto.randomUUID().replaceAll('-', ''), message } as Event, makeDsn(dsn));
const transactionEnvelope = () =>
  createEventEnvelope(
    { type: 'transaction', event_id: crypto.randomUUID().replaceAll('-', ''), transaction: 'GET /' } as Event,
    makeDsn(dsn),
  );
const messagesReceived = () => received.map((body) => (parseEnvelope(body)[1][0]?.[1] as Event | undefined)?.message);

describe('the server SDK transport on a thread of its own', () => {
  it('delivers an envelope to ingest as the SDK would send it, and answers with ingest’s status', async () => {
    const { start, started } = threadsOnChannels();
    const recordDroppedEvent = vi.fn();
    const transport = deliveringOffThread(Sentry.makeNodeTransport, start)({ url, recordDroppedEvent });
    const envelope: Envelope = addItemToEnvelope(
      errorEnvelope('a server error'),
      createAttachmentEnvelopeItem({ filename: 'bytes.bin', data: new Uint8Array([0, 10, 255, 13, 10, 123]) }),
    );

    await expect(transport.send(envelope)).resolves.toMatchObject({ statusCode: 200 });
    expect(received).toHaveLength(1);
    expect(received[0]).toEqual(Buffer.from(serializeEnvelope(envelope)));
    expect(started).toHaveLength(1);
    expect(recordDroppedEvent).not.toHaveBeenCalled();
  });

  it('starts no thread before the first envelope, and holds the process only while one is on its way', async () => {
    const { start, started } = threadsOnChannels();
    const transport = deliveringOffThread(Sentry.makeNodeTransport, start)({ url, recordDroppedEvent: vi.fn() });
    await expect(transport.flush(100)).resolves.toBe(true);
    expect(started).toHaveLength(0);

    answer = { status: 200, delayMs: 200 };
    const sent = transport.send(errorEnvelope('on its way'));
    expect(started[0]?.holds).toBe(1);
    await sent;
    expect(started[0]?.holds).toBe(0);
  });

  it('backs off as ingest’s rate limits ask, and the server’s client counts what it dropped', async () => {
    const { start } = threadsOnChannels();
    const recordDroppedEvent = vi.fn();
    const transport = deliveringOffThread(Sentry.makeNodeTransport, start)({ url, recordDroppedEvent });
    answer = { status: 429, headers: { 'x-sentry-rate-limits': '60:transaction:organization' } };

    await expect(transport.send(transactionEnvelope())).resolves.toMatchObject({ statusCode: 429 });
    await transport.send(transactionEnvelope());
    expect(received).toHaveLength(1);
    expect(recordDroppedEvent).toHaveBeenCalledWith('ratelimit_backoff', 'transaction', undefined);
    // Errors are not limited: they still go out.
    answer = { status: 200 };
    await expect(transport.send(errorEnvelope('not rate limited'))).resolves.toMatchObject({ statusCode: 200 });
    expect(received).toHaveLength(2);
  });

  it('fails a send as a network error when ingest cannot be reached', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { start } = threadsOnChannels();
    const transport = deliveringOffThread(
      Sentry.makeNodeTransport,
      start,
    )({
      url: `http://127.0.0.1:${port}/api/1/envelope/?sentry_key=key`,
      recordDroppedEvent: vi.fn(),
    });

    await expect(transport.send(errorEnvelope('nowhere to go'))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('waits in a flush for the envelopes on their way, and says when they did not arrive in time', async () => {
    const { start } = threadsOnChannels();
    const transport = deliveringOffThread(Sentry.makeNodeTransport, start)({ url, recordDroppedEvent: vi.fn() });
    answer = { status: 200, delayMs: 300 };

    void transport.send(errorEnvelope('slow ingest'));
    await expect(transport.flush(50)).resolves.toBe(false);
    await expect(transport.flush(2_000)).resolves.toBe(true);
    expect(messagesReceived()).toEqual(['slow ingest']);
  });

  it('fails what a stopped thread was sending, and starts another for the next envelope', async () => {
    const { start, started } = threadsOnChannels();
    const transport = deliveringOffThread(Sentry.makeNodeTransport, start)({ url, recordDroppedEvent: vi.fn() });
    await transport.send(errorEnvelope('first'));
    answer = { status: 200, delayMs: 500 };
    const cutOff = transport.send(errorEnvelope('cut off'));
    await expect.poll(() => received.length).toBe(2);

    started[0]?.stop();
    await expect(cutOff).rejects.toThrow('the envelope delivery thread stopped (exit code 1)');
    answer = { status: 200 };
    await expect(transport.send(errorEnvelope('after the stop'))).resolves.toMatchObject({ statusCode: 200 });
    expect(started).toHaveLength(2);
    expect(messagesReceived()).toEqual(['first', 'cut off', 'after the stop']);
  });

  it('sends from the server’s own thread once a delivery thread could not start, losing nothing after', async () => {
    const { start, started } = threadsOnChannels(true);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const transport = deliveringOffThread(Sentry.makeNodeTransport, start)({ url, recordDroppedEvent: vi.fn() });

    await expect(transport.send(errorEnvelope('while the thread failed'))).rejects.toThrow('Cannot find module');
    await expect(transport.send(errorEnvelope('afterwards'))).resolves.toMatchObject({ statusCode: 200 });
    await expect(transport.flush(1_000)).resolves.toBe(true);
    expect(started).toHaveLength(1);
    expect(messagesReceived()).toEqual(['afterwards']);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining("now go out on the server's own thread"));
    logged.mockRestore();
  });
});
