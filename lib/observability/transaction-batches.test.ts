import { AsyncLocalStorage } from 'node:async_hooks';
import { type BaseTransportOptions, type Client, createTransport } from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { inBatches } from '@/lib/observability/transaction-batches';

let client: Client;

beforeAll(() => {
  Sentry.init({
    dsn: 'http://key@127.0.0.1:9/1',
    defaultIntegrations: false,
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    transport: (options: BaseTransportOptions) => createTransport(options, async () => ({})),
  });
  client = Sentry.getClient() as Client;
});
afterAll(async () => {
  await Sentry.close();
});
afterEach(() => {
  vi.useRealTimers();
});

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

  it('sends a batch at once when it is full, and that batch never again', () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const send = inBatches((item: string) => sent.push(item), client, { delayMs: 100, maxBatch: 3 });
    send('a');
    send('b');
    expect(sent).toEqual([]);
    send('c');
    expect(sent).toEqual(['a', 'b', 'c']);
    send('d');
    vi.advanceTimersByTime(100);
    expect(sent).toEqual(['a', 'b', 'c', 'd']);
  });

  it('sends what waits when the client flushes, as the server does before it stops', async () => {
    const sent: string[] = [];
    const send = inBatches((item: string) => sent.push(item), client, { delayMs: 60_000 });
    send('a');
    send('b');
    await client.flush(1_000);
    expect(sent).toEqual(['a', 'b']);
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
