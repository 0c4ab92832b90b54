import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type BaseTransportOptions,
  type Client,
  createEventEnvelope,
  createTransport,
  type Event,
  parseEnvelope,
} from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { inBatches } from '@/lib/observability/transaction-batches';

let client: Client;
// What ingest took, each an envelope's one event: the transport answers 100 ms after a request.
const received: Event[] = [];

beforeAll(() => {
  Sentry.init({
    dsn: 'http://key@127.0.0.1:9/1',
    defaultIntegrations: false,
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    transport: (options: BaseTransportOptions) =>
      createTransport(options, async ({ body }) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        received.push(parseEnvelope(body)[1][0]?.[1] as Event);
        return { statusCode: 200 };
      }),
  });
  client = Sentry.getClient() as Client;
});
afterAll(async () => {
  await Sentry.close(2_000);
});
afterEach(() => {
  vi.useRealTimers();
});

/** Sends a transaction named `name` through the client, as sendAsTransactions does. */
function sendTransaction(name: string): void {
  void client.sendEnvelope(createEventEnvelope({ type: 'transaction', transaction: name }, client.getDsn()));
}

describe('inBatches', () => {
  it('holds each item until the first of its batch has waited the delay, then sends the batch in order', () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const send = inBatches((item: string) => sent.push(item), client, { delayMs: 100 });
    send('a');
    vi.advanceTimersByTime(60);
    send('b');
    send('c');
    vi.advanceTimersByTime(39);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual(['a', 'b', 'c']);
    send('d');
    vi.advanceTimersByTime(100);
    expect(sent).toEqual(['a', 'b', 'c', 'd']);
  });

  it('sends a batch at once when it is full, and the next one when its own delay has passed', () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const send = inBatches((item: string) => sent.push(item), client, { delayMs: 100, maxBatch: 3 });
    send('a');
    vi.advanceTimersByTime(50);
    send('b');
    expect(sent).toEqual([]);
    send('c');
    expect(sent).toEqual(['a', 'b', 'c']);
    send('d');
    // Where the full batch's timer would have fired.
    vi.advanceTimersByTime(50);
    expect(sent).toEqual(['a', 'b', 'c']);
    vi.advanceTimersByTime(50);
    expect(sent).toEqual(['a', 'b', 'c', 'd']);
  });

  it('hands what waits to the transport when the client flushes, which then waits for it', async () => {
    const send = inBatches(sendTransaction, client, { delayMs: 60_000 });
    send('flushed a');
    send('flushed b');
    expect(await client.flush(1_000)).toBe(true);
    const flushed = received.filter((event) => event.transaction?.startsWith('flushed'));
    expect(flushed.map((event) => event.transaction)).toEqual(['flushed a', 'flushed b']);
  });

  it('sends an item that comes as a flush begins at once, and batches again soon after', async () => {
    const sent: string[] = [];
    const send = inBatches((item: string) => sent.push(item), client, { delayMs: 200 });
    const flushed = client.flush(1_000);
    // The client has begun its flush.
    await new Promise((resolve) => setImmediate(resolve));
    send('during the flush');
    expect(sent).toEqual(['during the flush']);
    await flushed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    send('later');
    expect(sent).toEqual(['during the flush']);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(sent).toEqual(['during the flush', 'later']);
  });

  it('sends the rest of a batch when one item fails, and reports the failure', async () => {
    const sent: string[] = [];
    const reported = vi.spyOn(client, 'captureException');
    const send = inBatches(
      (item: string) => {
        if (item === 'bad') throw new Error('cannot send this one');
        sent.push(item);
      },
      client,
      { delayMs: 10 },
    );
    send('bad');
    send('good');
    // A throw out of the timer would fail the run as an uncaught exception.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent).toEqual(['good']);
    expect(reported).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'cannot send this one' }),
      expect.anything(),
      expect.anything(),
    );
    reported.mockRestore();
  });

  it('sends each batch outside the context of the request that started it', async () => {
    const requests = new AsyncLocalStorage<string>();
    const contexts: (string | undefined)[] = [];
    const send = inBatches(() => contexts.push(requests.getStore()), client, { delayMs: 10 });
    requests.run('first request', () => send('a'));
    requests.run('second request', () => send('b'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(contexts).toEqual([undefined, undefined]);
  });
});
