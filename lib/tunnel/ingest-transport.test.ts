import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createEventEnvelope, type Event, makeDsn, parseEnvelope } from '@sentry/core';
import { ingestTransport } from '@/lib/tunnel/ingest-transport';

// A real ingest stand-in on loopback: it records what arrives and answers as `answer` says.
type Received = { headers: IncomingHttpHeaders; body: Buffer };
const received: Received[] = [];
let answer: (response: ServerResponse) => void = (response) => response.writeHead(200).end('{}');
const ingest = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks) });
    answer(response);
  });
});
let url = '';
const dsn = makeDsn('http://key@127.0.0.1:1/1');

beforeAll(async () => {
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  url = `http://127.0.0.1:${(ingest.address() as AddressInfo).port}/api/1/envelope/?sentry_key=key`;
});
afterAll(() => {
  ingest.closeAllConnections();
  ingest.close();
});
afterEach(() => {
  received.length = 0;
  answer = (response) => response.writeHead(200).end('{}');
});

function transport(timeoutMs = 2_000, headers?: Record<string, string>) {
  const dropped: string[] = [];
  const made = ingestTransport(timeoutMs)({
    url,
    headers,
    recordDroppedEvent: (reason, category) => dropped.push(`${reason} ${category}`),
  });
  return { transport: made, dropped };
}

const envelopeOf = (event: Event) => createEventEnvelope(event, dsn);

describe('the server SDK transport over the ingest client', () => {
  it('sends each envelope whole, with its length and the SDK headers asked for, and hands back the answer', async () => {
    const { transport: sender } = transport(2_000, { 'x-extra': 'kept' });
    const response = await sender.send(envelopeOf({ event_id: 'a'.repeat(32), message: 'whole' }));

    expect(response.statusCode).toBe(200);
    const [{ headers, body }] = received as [Received];
    expect(headers['content-length']).toBe(String(body.byteLength));
    expect(headers['transfer-encoding']).toBeUndefined();
    expect(headers['content-type']).toBe('application/x-sentry-envelope');
    expect(headers['x-extra']).toBe('kept');
    const [, items] = parseEnvelope(body.toString('utf8'));
    expect(items.map(([, payload]) => (payload as Event).message)).toEqual(['whole']);
  });

  it('sends an envelope over 32 KiB gzip-compressed, as the SDK transport does', async () => {
    const { transport: sender } = transport();
    const message = 'x'.repeat(40 * 1024);
    await sender.send(envelopeOf({ event_id: 'b'.repeat(32), message }));

    const [{ headers, body }] = received as [Received];
    expect(headers['content-encoding']).toBe('gzip');
    expect(body.byteLength).toBeLessThan(4 * 1024);
    const [, items] = parseEnvelope(gunzipSync(body).toString('utf8'));
    expect(items.map(([, payload]) => (payload as Event).message)).toEqual([message]);
  });

  it("hands the SDK ingest's rate limits, which it then keeps to for that kind of data alone", async () => {
    const { transport: sender, dropped } = transport();
    // A limit on errors alone, sent with an envelope ingest took.
    answer = (response) => response.writeHead(200, { 'x-sentry-rate-limits': '60:error:key' }).end('{}');
    await sender.send(envelopeOf({ event_id: 'c'.repeat(32), message: 'taken' }));

    await sender.send(envelopeOf({ event_id: 'd'.repeat(32), message: 'held back' }));
    await sender.send(envelopeOf({ event_id: '9'.repeat(32), type: 'transaction', spans: [] }));
    expect(received.map(({ body }) => parseEnvelope(body.toString('utf8'))[1][0]?.[0].type)).toEqual([
      'event',
      'transaction',
    ]);
    expect(dropped).toEqual(['ratelimit_backoff error']);
  });

  it('fails a send ingest does not answer in time, counted as a network error, and lets go of it', async () => {
    const { transport: sender, dropped } = transport(200);
    answer = () => undefined;
    const startedAt = Date.now();
    await expect(sender.send(envelopeOf({ event_id: 'e'.repeat(32), message: 'hung' }))).rejects.toThrow(
      "Sentry's ingest did not answer within 200 ms",
    );
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(dropped).toEqual(['network_error error']);
    expect(await sender.flush(100)).toBe(true);
  });

  it('fails a send to an ingest nothing listens on, counted as a network error', async () => {
    const dropped: string[] = [];
    const sender = ingestTransport(2_000)({
      url: 'http://127.0.0.1:1/api/1/envelope/?sentry_key=key',
      recordDroppedEvent: (reason, category) => dropped.push(`${reason} ${category}`),
    });
    await expect(sender.send(envelopeOf({ event_id: 'f'.repeat(32), message: 'nowhere' }))).rejects.toThrow(
      "Sentry's ingest is unreachable",
    );
    expect(dropped).toEqual(['network_error error']);
  });
});
