import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimiter } from '@/lib/server/rate-limiter';
import { EnvelopeSpool } from '@/lib/tunnel/envelope-spool';
import { forwardEnvelope, ingestDelivery, type TunnelOptions } from '@/lib/tunnel/tunnel';

type Received = { url: string; headers: IncomingHttpHeaders; body: string; status: number };

// A real ingest stand-in on loopback, so forwarding goes over HTTP as in production.
let upstream: Server;
let received: Received[];
type Answer = { status: number; headers?: Record<string, string> };
/** Ingest's answer: the same to every envelope, or one for each body. */
let answer: Answer | ((body: string) => Answer);
let options: TunnelOptions;
let ownDsn: string;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const { status, headers } = typeof answer === 'function' ? answer(body) : answer;
      received.push({ url: request.url ?? '', headers: request.headers, body, status });
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
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
  options = { dsn: ownDsn, maxBodyBytes: 10_000, bodyDeadlineMs: 2_000, upstreamTimeoutMs: 2_000 };
});

function envelopeFor(dsn: string, message = 'hello'): string {
  return `${JSON.stringify({ event_id: 'a'.repeat(32), dsn })}\n{"type":"event"}\n${JSON.stringify({ message })}`;
}

function post(body: BodyInit, headers: Record<string, string> = {}, path = '/monitoring'): Request {
  return new Request(`http://app.test${path}`, { method: 'POST', body, headers });
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

  it('refuses an envelope that holds no items with 400, and forwards nothing of it', async () => {
    for (const body of [JSON.stringify({ dsn: ownDsn }), `${JSON.stringify({ dsn: ownDsn })}\n`]) {
      const response = await forwardEnvelope(post(body), options);
      expect([response.status, await response.text()]).toEqual([400, 'Envelope holds no items']);
    }
    expect(received).toEqual([]);
  });

  it('refuses an envelope of more than 1,000 items with 400, and forwards one of 1,000', async () => {
    const withItems = (count: number) => `{"dsn":"${ownDsn}"}\n${'{"type":"event"}\n{}\n'.repeat(count)}`;
    const refused = await forwardEnvelope(post(withItems(1_001)), { ...options, maxBodyBytes: 100_000 });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/more than 1000 items/);
    expect(received).toEqual([]);
    expect((await forwardEnvelope(post(withItems(1_000)), { ...options, maxBodyBytes: 100_000 })).status).toBe(200);
  });

  it('answers 408 and asks to close the connection when the body stalls past its deadline', async () => {
    async function* stalled() {
      yield new TextEncoder().encode(`{"dsn":"${ownDsn}"}\n`);
      await new Promise(() => undefined);
    }
    const request = { method: 'POST', url: '/monitoring', headers: new Headers(), body: stalled() };
    const startedAt = Date.now();
    const response = await forwardEnvelope(request, { ...options, bodyDeadlineMs: 200 });
    expect(response.status).toBe(408);
    expect(response.headers.get('connection')).toBe('close');
    expect(Date.now() - startedAt).toBeLessThan(2_000);
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

  it("passes ingest's answer without a body (204) through, never a 500", async () => {
    answer = { status: 204 };
    const response = await forwardEnvelope(post(envelopeFor(ownDsn)), options);
    expect(response.status).toBe(204);
    expect(received).toHaveLength(1);
  });

  it('passes rate-limit headers on a successful answer too', async () => {
    answer = { status: 200, headers: { 'x-sentry-rate-limits': '60:transaction:key' } };
    const response = await forwardEnvelope(post(envelopeFor(ownDsn)), options);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-sentry-rate-limits')).toBe('60:transaction:key');
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

  it.each(['GET', 'HEAD', 'OPTIONS', 'PUT'])(
    'answers %s with 405 and Allow: POST, configured or not',
    async (method) => {
      for (const dsn of [ownDsn, undefined]) {
        const response = await forwardEnvelope(new Request('http://app.test/monitoring', { method }), {
          ...options,
          dsn,
        });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        expect(await response.text()).toBe('Method not allowed: the tunnel takes POST');
      }
    },
  );

  it('refuses a DSN smuggled in the query string or in a second header line with 403', async () => {
    const viaQuery = await forwardEnvelope(
      post(envelopeFor(ownDsn), {}, `/monitoring?dsn=${encodeURIComponent('https://k@o1.ingest.sentry.io/9')}`),
      options,
    );
    expect(viaQuery.status).toBe(403);
    const secondLine = `${JSON.stringify({ dsn: ownDsn })}\n${JSON.stringify({ dsn: 'https://k@evil.example/9' })}\n{}`;
    expect((await forwardEnvelope(post(secondLine), options)).status).toBe(403);
    expect(received).toEqual([]);
  });

  it.each([
    [
      'the DSN twice, ours last',
      (own: string) => `{"dsn":"https://k@evil.example/9","dsn":"${own}"}\n{"type":"event"}\n{}`,
    ],
    [
      'the DSN twice, one key escaped',
      (own: string) => `{"\\u0064sn":"https://k@evil.example/9","dsn":"${own}"}\n{"type":"event"}\n{}`,
    ],
    ['a nested key twice', (own: string) => `{"dsn":"${own}","sdk":{"name":"a","name":"b"}}\n{"type":"event"}\n{}`],
    ['an item header with a key twice', (own: string) => `{"dsn":"${own}"}\n{"type":"attachment","type":"event"}\n{}`],
  ])('refuses an envelope whose headers name a key twice (%s) with 400, forwarding nothing', async (_, body) => {
    const response = await forwardEnvelope(post(body(ownDsn)), options);
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('Envelope headers name a key twice');
    expect(received).toEqual([]);
  });

  it.each([
    // 16 bytes back from the end of its payload line is the start of this very line.
    ['a negative length, which would walk back to its own line forever', '{"length":-16}\n{}\n{}'],
    ['a fractional length', '{"type":"event","length":1.5}\n{}'],
    ['a length that is not a number', '{"type":"event","length":"2"}\n{}'],
    ['an item header that is not an object', '[1]\n{}'],
    ['a length past the end of the body', '{"type":"event","length":999999999}\n{}'],
    ['a length one byte past the end of the body', '{"type":"event","length":3}\n{}'],
  ])('refuses an envelope with %s with 400 at once, forwarding nothing', async (_, items) => {
    const response = await forwardEnvelope(post(`{"dsn":"${ownDsn}"}\n${items}`), options);
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('Malformed body: expected a Sentry envelope');
    expect(received).toEqual([]);
  });

  it('refuses a DSN in an item header that only Relay reads as one (after an empty payload) with 403', async () => {
    // Sentry's parser reads a zero length as "a line", so it takes the next line for a payload; the
    // envelope format reads no bytes and one separator, and the rest of that line for a header.
    const body = `{"dsn":"${ownDsn}"}\n{"type":"attachment","length":0}\n {"type":"event","dsn":"https://k@evil.example/9"}\n{}\n{}`;
    expect((await forwardEnvelope(post(body), options)).status).toBe(403);
    expect(received).toEqual([]);
  });

  it('refuses a DSN it cannot parse with 403 and writes none of it to the log', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const forged = 'not a dsn\n2026-01-01 FAKE LOG LINE';
      const response = await forwardEnvelope(post(`${JSON.stringify({ dsn: forged })}\n{"type":"event"}\n{}`), options);
      expect(response.status).toBe(403);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it('refuses a DSN that is not a string with 403', async () => {
    const response = await forwardEnvelope(post(`{"dsn":["${ownDsn}"]}\n{"type":"event"}\n{}`), options);
    expect(response.status).toBe(403);
    expect(received).toEqual([]);
  });

  it('forwards an item whose payload, not its header, repeats a key', async () => {
    const body = `{"dsn":"${ownDsn}"}\n{"type":"event","length":17}\n{"a":1,"a":2,"b"}`;
    expect((await forwardEnvelope(post(body), options)).status).toBe(200);
  });

  it.each([
    ['a compressed body', { 'content-encoding': 'gzip' }],
    ['a form post', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['JSON', { 'content-type': 'application/json' }],
  ])('refuses %s with 415', async (_, headers) => {
    expect((await forwardEnvelope(post(envelopeFor(ownDsn), headers), options)).status).toBe(415);
    expect(received).toEqual([]);
  });

  it('accepts what browser SDKs send: text/plain, the envelope type, or no type', async () => {
    for (const contentType of ['text/plain;charset=UTF-8', 'application/x-sentry-envelope', undefined]) {
      const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      const request = new Request('http://app.test/monitoring', {
        method: 'POST',
        body: new TextEncoder().encode(envelopeFor(ownDsn)),
        headers,
      });
      expect((await forwardEnvelope(request, options)).status).toBe(200);
    }
    expect(received).toHaveLength(3);
  });

  it('closes the connection with each refusal made before reading the body, so the rest is never read', async () => {
    const refusals = [
      forwardEnvelope(new Request('http://app.test/monitoring', { method: 'PUT', body: 'x' }), options),
      forwardEnvelope(post(envelopeFor(ownDsn), {}, '/monitoring?dsn=theirs'), options),
      forwardEnvelope(post(envelopeFor(ownDsn), { 'content-type': 'application/json' }), options),
      forwardEnvelope(post(envelopeFor(ownDsn), { 'content-encoding': 'gzip' }), options),
      forwardEnvelope(post(envelopeFor(ownDsn)), { ...options, limiter: new RateLimiter(0, 60_000) }),
      forwardEnvelope(post(envelopeFor(ownDsn)), { ...options, dsn: undefined }),
    ];
    const answers = await Promise.all(refusals);
    expect(answers.map((answer) => [answer.status, answer.headers.get('connection')])).toEqual(
      [405, 403, 415, 415, 429, 404].map((status) => [status, 'close']),
    );
    expect(received).toEqual([]);
  });

  it('caps each client, not everyone, and says when to retry', async () => {
    const limited = { ...options, limiter: new RateLimiter(2, 60_000) };
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      statuses.push((await forwardEnvelope(post(envelopeFor(ownDsn)), limited, 'client-a')).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await forwardEnvelope(post(envelopeFor(ownDsn)), limited, 'client-a');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await forwardEnvelope(post(envelopeFor(ownDsn)), limited, 'client-b')).status).toBe(200);
    expect(received).toHaveLength(3);
  });

  describe('with a spool', () => {
    let dir: string;
    let spool: EnvelopeSpool;

    const spoolOptions = (dsn: string) => ({
      maxBytes: 2_000,
      maxAgeMs: 60_000,
      deliver: ingestDelivery(dsn, 2_000),
      minBackoffMs: 10,
      maxBackoffMs: 20,
    });

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'tunnel-spool-'));
      spool = new EnvelopeSpool({ ...spoolOptions(ownDsn), dir });
    });

    afterEach(async () => {
      await spool.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('takes envelopes while ingest answers 5xx, and delivers them in order when it recovers', async () => {
      answer = { status: 503 };
      for (const message of ['one', 'two']) {
        const response = await forwardEnvelope(post(envelopeFor(ownDsn, message)), { ...options, spool });
        expect(response.status).toBe(200);
        expect(response.headers.get('x-tunnel-spooled')).toBe('1');
      }
      answer = { status: 200 };
      await vi.waitFor(() => expect(spool.stats.delivered).toBe(2));
      const accepted = received.filter((request) => request.status === 200);
      expect(accepted.map((request) => JSON.parse(request.body.split('\n')[2] ?? '{}').message)).toEqual([
        'one',
        'two',
      ]);
    });

    it('drops a kept envelope ingest refuses as over quota (429), and delivers the errors behind it without waiting the hour it asks', async () => {
      answer = { status: 503 };
      for (const message of ['a transaction over quota', 'an error']) {
        expect((await forwardEnvelope(post(envelopeFor(ownDsn, message)), { ...options, spool })).status).toBe(200);
      }
      answer = (body) =>
        body.includes('over quota')
          ? { status: 429, headers: { 'retry-after': '3600', 'x-sentry-rate-limits': '3600:transaction:organization' } }
          : { status: 200 };
      await vi.waitFor(() => expect(spool.stats).toMatchObject({ rateLimited: 1, delivered: 1, pending: 0 }));
      expect(received.filter((request) => request.status === 200).map((request) => request.body)).toEqual([
        envelopeFor(ownDsn, 'an error'),
      ]);
    });

    it('after a 429, drops the kept envelopes of the limited categories without sending them, as the SDK backs off', async () => {
      answer = { status: 503 };
      for (const message of ['first', 'second', 'third']) {
        expect((await forwardEnvelope(post(envelopeFor(ownDsn, message)), { ...options, spool })).status).toBe(200);
      }
      answer = { status: 429, headers: { 'retry-after': '60' } };
      await vi.waitFor(() => expect(spool.stats).toMatchObject({ rateLimited: 3, pending: 0 }));
      expect(received.filter((request) => request.status === 429)).toHaveLength(1);
    });

    it("keeps what waits while ingest answers 503 with Retry-After, and delivers it when ingest is back: a 5xx's Retry-After is no rate limit", async () => {
      answer = { status: 503 };
      for (const message of ['first', 'second']) {
        expect((await forwardEnvelope(post(envelopeFor(ownDsn, message)), { ...options, spool })).status).toBe(200);
      }
      const before = received.length;
      answer = { status: 503, headers: { 'retry-after': '60' } };
      // Tried again, and told to wait, at least twice.
      await vi.waitFor(() => expect(received.length).toBeGreaterThanOrEqual(before + 2));
      answer = { status: 200 };
      await vi.waitFor(() => expect(spool.stats).toMatchObject({ delivered: 2, rateLimited: 0, pending: 0 }));
    });

    it('answers 503 with Retry-After when the spool is full, rather than dropping silently', async () => {
      answer = { status: 503 };
      const big = envelopeFor(ownDsn, 'x'.repeat(1_500));
      expect((await forwardEnvelope(post(big), { ...options, spool })).status).toBe(200);
      const full = await forwardEnvelope(post(big), { ...options, spool });
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toBe('60');
    });

    it('sends an envelope the full spool cannot queue behind its backlog to ingest at once, which takes it', async () => {
      // Ingest is back for new envelopes, while the one kept keeps failing (a bad gateway for it alone).
      answer = (body) => (body.includes('kept') ? { status: 503 } : { status: 200 });
      const kept = envelopeFor(ownDsn, `kept ${'x'.repeat(1_500)}`);
      expect((await forwardEnvelope(post(kept), { ...options, spool })).status).toBe(200);
      expect(spool.hasPending).toBe(true);
      const next = envelopeFor(ownDsn, `next ${'x'.repeat(1_500)}`);
      const response = await forwardEnvelope(post(next), { ...options, spool });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-tunnel-spooled')).toBeNull();
      expect(received.filter((request) => request.status === 200).map((request) => request.body)).toEqual([next]);
    });

    // Its own timeout: the three seconds it waits for the set-aside envelope take most of the default five.
    it('sets aside an envelope ingest alone keeps failing, forwards what comes after it, and delivers it once ingest takes it', async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      await spool.close();
      // Tries far enough apart that the next envelope is queued before the third, and set aside for
      // longer than the checks below take.
      spool = new EnvelopeSpool({
        ...spoolOptions(ownDsn),
        dir,
        minBackoffMs: 200,
        maxBackoffMs: 200,
        minSetAsideMs: 3_000,
        maxSetAsideMs: 3_000,
      });
      // Ingest is up, but fails this one envelope every time (a bad gateway for it alone).
      let isStuck = true;
      answer = (body) => (isStuck && body.includes('stuck') ? { status: 500 } : { status: 200 });
      const bodyOf = (message: string) => envelopeFor(ownDsn, message);
      const kept = await forwardEnvelope(post(bodyOf('stuck')), { ...options, spool });
      expect(kept.headers.get('x-tunnel-spooled')).toBe('1');
      // Queued behind it, in order, until it is set aside.
      const behind = await forwardEnvelope(post(bodyOf('behind it')), { ...options, spool });
      expect(behind.headers.get('x-tunnel-spooled')).toBe('1');
      await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 1, setAside: 1, delivered: 1 }), {
        timeout: 3_000,
      });
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('it is set aside'));
      const tookIt = () => received.filter((request) => request.status === 200).map((request) => request.body);
      expect(tookIt()).toEqual([bodyOf('behind it')]);
      // Once by the tunnel, which then kept it; three times alone by the spool, once beside the next.
      expect(received.filter((request) => request.status === 500)).toHaveLength(5);

      const after = await forwardEnvelope(post(bodyOf('after it')), { ...options, spool });
      expect(after.status).toBe(200);
      expect(after.headers.get('x-tunnel-spooled')).toBeNull();
      expect(tookIt()).toEqual([bodyOf('behind it'), bodyOf('after it')]);

      isStuck = false;
      await vi.waitFor(() => expect(spool.stats).toMatchObject({ pending: 0, setAside: 0, delivered: 2 }), {
        timeout: 10_000,
      });
      expect(tookIt()).toEqual([bodyOf('behind it'), bodyOf('after it'), bodyOf('stuck')]);
    }, 20_000);

    it('never delivers what an earlier run with another DSN left in the spool folder', async () => {
      const otherDsn = 'http://otherkey@127.0.0.1:1/8';
      const earlierRun = new EnvelopeSpool({ ...spoolOptions(otherDsn), dir });
      await earlierRun.enqueue(new TextEncoder().encode(envelopeFor(otherDsn, 'theirs')));
      await earlierRun.close();

      const thisRun = new EnvelopeSpool({ ...spoolOptions(ownDsn), dir });
      thisRun.start();
      try {
        await vi.waitFor(() => expect(thisRun.stats).toMatchObject({ pending: 0, rejected: 1 }));
        expect(received).toEqual([]);
      } finally {
        await thisRun.close();
      }
    });

    it('answers 503 with Retry-After, never 500, when ingest is down and the spool cannot be written', async () => {
      answer = { status: 503 };
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      await spool.ready();
      await rm(dir, { recursive: true });
      await writeFile(dir, 'not a folder');
      const response = await forwardEnvelope(post(envelopeFor(ownDsn, 'nowhere to keep it')), { ...options, spool });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('60');
      expect(await response.text()).toBe('Sentry is unreachable and the spool cannot be written');
      await rm(dir);
    });

    it('spools nothing and answers 200 while a healthy ingest drops every kept-alive connection it reuses', async () => {
      // Ingest behind a proxy that closes idle connections: each reused one is gone when used.
      const requestsPerSocket = new WeakMap<object, number>();
      const dropping = createServer((request, response) => {
        const count = (requestsPerSocket.get(request.socket) ?? 0) + 1;
        requestsPerSocket.set(request.socket, count);
        if (count > 1) return void request.socket.destroy();
        request.resume();
        request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      });
      await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
      const droppingDsn = `http://publickey@127.0.0.1:${(dropping.address() as AddressInfo).port}/7`;
      try {
        for (const message of ['one', 'two', 'three', 'four']) {
          const response = await forwardEnvelope(post(envelopeFor(droppingDsn, message)), {
            ...options,
            dsn: droppingDsn,
            spool,
          });
          expect(response.status).toBe(200);
          expect(response.headers.get('x-tunnel-spooled')).toBeNull();
        }
        expect(spool.stats.pending).toBe(0);
      } finally {
        await new Promise<void>((resolve) => dropping.close(() => resolve()));
      }
    });

    it('keeps envelopes when ingest cannot be reached at all', async () => {
      const unreachable = 'http://publickey@127.0.0.1:1/7';
      const response = await forwardEnvelope(post(envelopeFor(unreachable)), { ...options, dsn: unreachable, spool });
      expect(response.status).toBe(200);
      expect(spool.stats.pending).toBe(1);
    });
  });
});
