import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forwardEnvelope, type TunnelOptions } from '@/lib/observability/tunnel';

type Received = { url: string; headers: IncomingHttpHeaders; body: string };

// A real ingest stand-in on loopback, so forwarding goes over HTTP as in production.
let upstream: Server;
let received: Received[];
let answer: { status: number; headers?: Record<string, string> };
let options: TunnelOptions;
let ownDsn: string;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end('{"id":"abc"}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  ownDsn = `http://publickey@127.0.0.1:${port}/7`;
});

afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

beforeEach(() => {
  received = [];
  answer = { status: 200 };
  options = { dsn: ownDsn, maxBodyBytes: 10_000, upstreamTimeoutMs: 2_000 };
});

function envelopeFor(dsn: string, message = 'hello'): string {
  return `${JSON.stringify({ event_id: 'a'.repeat(32), dsn })}\n{"type":"event"}\n${JSON.stringify({ message })}`;
}

function post(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request('http://app.test/monitoring', { method: 'POST', body, headers });
}

describe('the tunnel', () => {
  it("forwards an envelope for our own DSN to that DSN's ingest endpoint, unchanged", async () => {
    const body = envelopeFor(ownDsn);
    const response = await forwardEnvelope(post(body), options);
    expect(response.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]?.url).toMatch(/^\/api\/7\/envelope\/\?sentry_version=7&sentry_key=publickey/);
    expect(received[0]?.body).toBe(body);
  });

  it.each([
    ['another host', 'https://publickey@o1.ingest.sentry.io/7'],
    ['another project on our host', () => ownDsn.replace(/\/7$/, '/8')],
    ['another key', () => ownDsn.replace('publickey', 'otherkey')],
    ['an unparseable DSN', 'not a dsn'],
  ])('refuses an envelope for %s with 403 and forwards nothing', async (_, dsn) => {
    const response = await forwardEnvelope(post(envelopeFor(typeof dsn === 'function' ? dsn() : dsn)), options);
    expect(response.status).toBe(403);
    expect(received).toEqual([]);
  });

  it.each([
    ['an empty body', ''],
    ['plain text', 'hello there'],
    ['JSON that is not an envelope header', '[1,2,3]'],
    ['a header without a DSN', '{"event_id":"x"}\n{"type":"event"}\n{}'],
  ])('refuses %s with 400 and forwards nothing', async (_, body) => {
    const response = await forwardEnvelope(post(body), options);
    expect(response.status).toBe(400);
    expect(received).toEqual([]);
  });

  it('refuses a body over the cap with 413, by declared length or by what arrives', async () => {
    const big = envelopeFor(ownDsn, 'x'.repeat(20_000));
    expect((await forwardEnvelope(post(big), options)).status).toBe(413);
    const stream = new Blob([big]).stream();
    const streamed = new Request('http://app.test/monitoring', {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect((await forwardEnvelope(streamed, options)).status).toBe(413);
    expect(received).toEqual([]);
  });

  it("passes ingest's rate limits through to the browser", async () => {
    answer = { status: 429, headers: { 'retry-after': '60', 'x-sentry-rate-limits': '60:error:organization' } };
    const response = await forwardEnvelope(post(envelopeFor(ownDsn)), options);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(response.headers.get('x-sentry-rate-limits')).toBe('60:error:organization');
  });

  it('answers 502 when ingest cannot be reached, and 404 when no DSN is configured', async () => {
    const unreachable = await forwardEnvelope(post(envelopeFor('http://publickey@127.0.0.1:1/7')), {
      ...options,
      dsn: 'http://publickey@127.0.0.1:1/7',
    });
    expect(unreachable.status).toBe(502);
    const off = await forwardEnvelope(post(envelopeFor(ownDsn)), { ...options, dsn: undefined });
    expect(off.status).toBe(404);
  });
});
