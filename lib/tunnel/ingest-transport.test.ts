import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createEnvelope, createEventEnvelope, type Envelope, type Event, makeDsn, parseEnvelope } from '@sentry/core';
import { ingestTransport, sendsThroughProxy } from '@/lib/tunnel/ingest-transport';

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
  it('sends each envelope whole, with its length in bytes and the SDK headers asked for, and hands back the answer', async () => {
    const { transport: sender } = transport(2_000, { 'x-extra': 'kept' });
    const message = 'whole — é 🚀';
    const response = await sender.send(envelopeOf({ event_id: 'a'.repeat(32), message }));

    expect(response.statusCode).toBe(200);
    const [{ headers, body }] = received as [Received];
    expect(headers['content-length']).toBe(String(body.byteLength));
    expect(headers['transfer-encoding']).toBeUndefined();
    expect(headers['content-encoding']).toBeUndefined();
    expect(headers['content-type']).toBe('application/x-sentry-envelope');
    expect(headers['x-extra']).toBe('kept');
    const [, items] = parseEnvelope(body.toString('utf8'));
    expect(items.map(([, payload]) => (payload as Event).message)).toEqual([message]);
  });

  it('sends an envelope with a binary item as the bytes the SDK serialized', async () => {
    const { transport: sender } = transport();
    const bytes = new Uint8Array([0, 1, 254, 255]);
    const envelope: Envelope = createEnvelope({ event_id: '8'.repeat(32) }, [
      [{ type: 'attachment', length: bytes.byteLength, filename: 'state.bin' }, bytes],
    ]);
    await sender.send(envelope);

    const [{ headers, body }] = received as [Received];
    expect(headers['content-length']).toBe(String(body.byteLength));
    const [, items] = parseEnvelope(new Uint8Array(body));
    expect(items.map(([, payload]) => Array.from(payload as Uint8Array))).toEqual([[0, 1, 254, 255]]);
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
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const dropped: string[] = [];
    const sender = ingestTransport(2_000)({
      url: `http://127.0.0.1:${port}/api/1/envelope/?sentry_key=key`,
      recordDroppedEvent: (reason, category) => dropped.push(`${reason} ${category}`),
    });
    await expect(sender.send(envelopeOf({ event_id: 'f'.repeat(32), message: 'nowhere' }))).rejects.toThrow(
      "Sentry's ingest is unreachable",
    );
    expect(dropped).toEqual(['network_error error']);
  });
});

describe("sendsThroughProxy, the rule of Sentry's Node transport", () => {
  const https = 'https://o1.ingest.sentry.io/api/1/envelope/';
  const http = 'http://sentry.internal:9000/api/1/envelope/';

  it('takes https_proxy for an https ingest, http_proxy for either, and no proxy when none is set', () => {
    expect(sendsThroughProxy(https, {})).toBe(false);
    expect(sendsThroughProxy(https, { https_proxy: 'http://proxy:3128' })).toBe(true);
    expect(sendsThroughProxy(http, { https_proxy: 'http://proxy:3128' })).toBe(false);
    expect(sendsThroughProxy(http, { http_proxy: 'http://proxy:3128' })).toBe(true);
    expect(sendsThroughProxy(https, { http_proxy: 'http://proxy:3128' })).toBe(true);
  });

  it('sends directly to a host no_proxy lists by the end of its name or of its host and port', () => {
    const proxies = { http_proxy: 'http://proxy:3128', https_proxy: 'http://proxy:3128' };
    expect(sendsThroughProxy(https, { ...proxies, no_proxy: 'localhost,.sentry.io' })).toBe(false);
    expect(sendsThroughProxy(http, { ...proxies, no_proxy: 'internal:9000' })).toBe(false);
    expect(sendsThroughProxy(http, { ...proxies, no_proxy: 'example.com' })).toBe(true);
    // As the SDK reads an empty no_proxy: every host is exempt.
    expect(sendsThroughProxy(https, { ...proxies, no_proxy: '' })).toBe(false);
  });
});
