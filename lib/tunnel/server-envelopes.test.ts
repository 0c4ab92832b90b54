import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BaseTransportOptions,
  createEventEnvelope,
  type Event,
  makeDsn,
  parseEnvelope,
  type Transport,
} from '@sentry/core';
import * as Sentry from '@sentry/nextjs';
import { EnvelopeSpool } from '@/lib/tunnel/envelope-spool';
import { ingestTransport } from '@/lib/tunnel/ingest-transport';
import { keepingErrorsForLater, keepServerErrorsIn, keepUnansweredErrors } from '@/lib/tunnel/server-envelopes';
import { ingestDelivery } from '@/lib/tunnel/tunnel';

// A real ingest stand-in on loopback: answering `downStatus` until `isUp`, recording the events it took.
let isUp = false;
let downStatus = 503;
let downHeaders: Record<string, string> = {};
// While set, ingest takes envelopes and never answers (a hung ingest, or one behind a stuck proxy).
let isHanging = false;
const hanging: import('node:http').ServerResponse[] = [];
const accepted: { type: string; event: Event }[] = [];
const ingest = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (isHanging) {
      hanging.push(response);
      return;
    }
    if (!isUp) {
      response.writeHead(downStatus, downHeaders).end();
      return;
    }
    const [, items] = parseEnvelope(Buffer.concat(chunks).toString('utf8'));
    for (const [header, payload] of items) accepted.push({ type: header.type, event: payload as Event });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let dir = '';
let dsn = '';
let spool: EnvelopeSpool;

beforeAll(async () => {
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  dsn = `http://key@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`;
  dir = await mkdtemp(join(tmpdir(), 'server-envelopes-'));
  spool = new EnvelopeSpool({
    dir,
    maxBytes: 1_000_000,
    maxAgeMs: 60_000,
    deliver: ingestDelivery(dsn, 2_000),
    minBackoffMs: 5,
    maxBackoffMs: 20,
  });
  spool.start();
  keepServerErrorsIn(spool, dsn);
  Sentry.init({
    dsn,
    defaultIntegrations: false,
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    tracesSampleRate: 1,
    transport: keepingErrorsForLater(ingestTransport(5_000)),
  });
});
afterAll(async () => {
  await Sentry.close();
  await spool.close();
  ingest.close();
  await rm(dir, { recursive: true, force: true });
});

// Each test leaves ingest up and answering, whatever it made of it, and the spool empty: ingest
// records an envelope before the spool has removed it, and a count left over would be the next
// test's. Then its events go out of the next one's way (the transports' tests run twice, with the
// same ids).
afterEach(async () => {
  isHanging = false;
  for (const response of hanging.splice(0)) response.destroy();
  downStatus = 503;
  downHeaders = {};
  isUp = true;
  await expect.poll(() => spool.stats.pending, { timeout: 10_000 }).toBe(0);
  accepted.length = 0;
});

/** How a transport is made from the SDK's options. */
type MakeTransport = (options: BaseTransportOptions) => Transport;

/** A transport of its own to the ingest stand-in: what the SDK remembers of ingest stays with it. */
function transportToIngest(makeTransport: MakeTransport, port = (ingest.address() as AddressInfo).port) {
  return keepingErrorsForLater(makeTransport)({
    url: `http://127.0.0.1:${port}/api/1/envelope/?sentry_key=key`,
    recordDroppedEvent: () => undefined,
  });
}

describe('the server SDK transport, kept for later', () => {
  it('delivers an error captured while ingest is down, once, when it is back; a transaction is not kept', async () => {
    const eventId = Sentry.captureException(new Error('server error while ingest is down'));
    Sentry.startSpan({ name: 'a transaction while ingest is down' }, () => undefined);
    // The flush returns once the error is kept: a shutdown that flushes first loses nothing.
    await Sentry.flush(2_000);
    expect(spool.stats.pending).toBe(1);
    expect(accepted).toEqual([]);

    isUp = true;
    await expect.poll(() => accepted.map(({ event }) => event.event_id), { timeout: 10_000 }).toEqual([eventId]);
    expect(accepted[0]?.event.exception?.values?.[0]?.value).toBe('server error while ingest is down');
    // Anything else kept would have gone out by now too.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(accepted.map(({ type }) => type)).toEqual(['event']);
  });

  it("keeps nothing ingest refused with 429: the SDK backs off as asked, and the spool's queue stays clear", async () => {
    isUp = false;
    downStatus = 429;
    Sentry.captureException(new Error('server error while rate limited'));
    // The flush waits for whatever is being kept, so nothing can still be on its way.
    await Sentry.flush(2_000);
    expect(spool.stats.pending).toBe(0);
  });
});

// The server's transport, and the SDK's own, which it keeps when ingest is behind a proxy.
describe.each<[string, MakeTransport]>([
  ['the ingest client', ingestTransport(5_000)],
  ["the SDK's own", Sentry.makeNodeTransport],
])('the server SDK transport over %s, kept for later', (_name, makeTransport) => {
  it('keeps an error envelope whose send failed to connect at all, and delivers it to the project', async () => {
    isUp = false;
    const unreachable = createServer();
    unreachable.listen(0, '127.0.0.1');
    await once(unreachable, 'listening');
    const { port } = unreachable.address() as AddressInfo;
    await new Promise((resolve) => unreachable.close(resolve));
    const transport = transportToIngest(makeTransport, port);
    const event: Event = { event_id: 'c0ffee00c0ffee00c0ffee00c0ffee00', message: 'refused connection' };
    await expect(transport.send(createEventEnvelope(event, makeDsn(dsn)))).rejects.toThrow();
    await expect.poll(() => spool.stats.pending, { timeout: 5_000 }).toBe(1);

    isUp = true;
    await expect
      .poll(() => accepted.some(({ event: taken }) => taken.event_id === event.event_id), { timeout: 10_000 })
      .toBe(true);
  });

  it("keeps the errors the SDK holds back after a 5xx's Retry-After, which it reads as a limit on everything", async () => {
    isUp = false;
    downHeaders = { 'retry-after': '60' };
    const transport = transportToIngest(makeTransport);
    const eventIds = ['a', 'b', 'c'].map((letter) => letter.repeat(32));
    const pendingBefore = spool.stats.pending;
    for (const eventId of eventIds) {
      await transport.send(
        createEventEnvelope({ event_id: eventId, message: 'while ingest asks to wait' }, makeDsn(dsn)),
      );
    }
    await transport.flush(2_000);
    expect(spool.stats.pending - pendingBefore).toBe(3);

    isUp = true;
    await expect
      .poll(() => eventIds.filter((id) => accepted.some(({ event }) => event.event_id === id)).length, {
        timeout: 10_000,
      })
      .toBe(3);
  });

  // Its own timeout: the spool's delivery it waits for at the end may take most of the default five seconds.
  it("keeps the errors the SDK holds back for a 5xx's Retry-After though an answer that came later was a 200", async () => {
    isHanging = true;
    const transport = transportToIngest(makeTransport);
    const send = (letter: string) =>
      transport.send(createEventEnvelope({ event_id: letter.repeat(32), message: letter }, makeDsn(dsn)));
    const pendingBefore = spool.stats.pending;
    const both = Promise.all([send('1'), send('2')]);
    await expect.poll(() => hanging.length).toBe(2);
    const [first, second] = hanging.splice(0);
    first?.writeHead(503, { 'retry-after': '60' }).end();
    await new Promise((resolve) => setTimeout(resolve, 50));
    second?.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    await both;
    // Held back by the SDK, answered no status: kept as the one refused with 503 was.
    expect((await send('3')).statusCode).toBeUndefined();
    await transport.flush(1_000);
    expect(spool.stats.pending - pendingBefore).toBe(2);
    isHanging = false;
    isUp = true;
    await expect.poll(() => spool.stats.pending, { timeout: 10_000 }).toBe(pendingBefore);
  }, 20_000);

  it('at shutdown keeps the errors a hung ingest has not answered, which a flush alone leaves on their way', async () => {
    isHanging = true;
    const transport = transportToIngest(makeTransport);
    const pendingBefore = spool.stats.pending;
    const event: Event = { event_id: 'd'.repeat(32), message: 'sent as the server stops' };
    const sent = transport.send(createEventEnvelope(event, makeDsn(dsn)));
    await expect.poll(() => hanging.length).toBe(1);
    // The SDK flushes after each server error too: an ingest slow to answer is not taken for gone.
    expect(await transport.flush(100)).toBe(false);
    expect(spool.stats.pending - pendingBefore).toBe(0);
    expect(await keepUnansweredErrors()).toBe(true);
    expect(spool.stats.pending - pendingBefore).toBe(1);

    // Its answer, when it comes after all, keeps nothing twice.
    isHanging = false;
    for (const response of hanging.splice(0)) response.writeHead(503).end();
    await sent;
    await transport.flush(1_000);
    expect(spool.stats.pending - pendingBefore).toBe(1);
    isUp = true;
    await expect
      .poll(() => accepted.some(({ event: taken }) => taken.event_id === event.event_id), { timeout: 10_000 })
      .toBe(true);
  });
});

describe('the server SDK transport over the ingest client, with a hung ingest', () => {
  it('keeps an error ingest does not answer in time while the server runs, not only at shutdown', async () => {
    isHanging = true;
    const transport = transportToIngest(ingestTransport(200));
    const pendingBefore = spool.stats.pending;
    const event: Event = { event_id: 'e'.repeat(32), message: 'sent to a hung ingest' };
    await expect(transport.send(createEventEnvelope(event, makeDsn(dsn)))).rejects.toThrow('did not answer');
    await expect.poll(() => spool.stats.pending - pendingBefore, { timeout: 5_000 }).toBe(1);

    isHanging = false;
    isUp = true;
    await expect
      .poll(() => accepted.some(({ event: taken }) => taken.event_id === event.event_id), { timeout: 10_000 })
      .toBe(true);
  });
});
