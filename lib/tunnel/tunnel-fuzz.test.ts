import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeDsn, parseEnvelope } from '@sentry/core';
import { forwardEnvelope, type TunnelOptions } from '@/lib/tunnel/tunnel';

// Hostile bodies against the real handler and a real loopback ingest: random bytes and mutations
// of a valid envelope. Every answer must be a documented one, and whatever reaches ingest must be
// an envelope for our own project and no other.

const CASES = 3_000;
const ALLOWED_STATUSES = new Set([200, 400, 403, 413]);

let upstream: Server;
let forwarded: Buffer[];
let options: TunnelOptions;
let ownDsn: string;

beforeAll(async () => {
  forwarded = [];
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      forwarded.push(Buffer.concat(chunks));
      response.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  ownDsn = `http://fuzzkey@127.0.0.1:${(upstream.address() as AddressInfo).port}/3`;
  // Deadlines far off: this fuzzes the parsing, and a busy machine must not turn a case into a 408 or 504.
  options = { dsn: ownDsn, maxBodyBytes: 4_096, bodyDeadlineMs: 30_000, upstreamTimeoutMs: 30_000 };
});

afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

/** Mulberry32: a small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function validEnvelope(dsn: string): string {
  return [
    JSON.stringify({ event_id: 'f'.repeat(32), dsn, sent_at: '2026-11-22T00:00:00.000Z' }),
    JSON.stringify({ type: 'event', length: 28 }),
    JSON.stringify({ message: 'fuzzed message' }).padEnd(28),
    JSON.stringify({ type: 'attachment', length: 5, filename: 'a.txt' }),
    'hello',
  ].join('\n');
}

function mutate(next: () => number, base: Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = Array.from(base);
  const pick = () => Math.floor(next() * bytes.length);
  const foreign = new TextEncoder().encode('https://k@evil.example/9');
  const mutations = 1 + Math.floor(next() * 4);
  for (let index = 0; index < mutations; index++) {
    const kind = Math.floor(next() * 9);
    if (kind === 0) bytes[pick()] = Math.floor(next() * 256);
    else if (kind === 1) bytes.splice(pick(), Math.floor(next() * 20));
    else if (kind === 2) bytes.splice(pick(), 0, 10);
    else if (kind === 3) bytes.splice(pick(), 0, ...bytes.slice(0, Math.floor(next() * 80)));
    else if (kind === 4) bytes.splice(pick(), 0, ...foreign);
    else if (kind === 5) bytes.length = pick();
    else if (kind === 6) bytes.splice(pick(), 0, ...new TextEncoder().encode('{"dsn":"https://k@evil.example/9"}\n'));
    // A key twice: after an object's opening brace, a foreign DSN or another item type first.
    else {
      const at = bytes.indexOf(0x7b, pick());
      const key = kind === 7 ? '"dsn":"https://k@evil.example/9",' : '"type":"attachment",';
      if (at !== -1) bytes.splice(at + 1, 0, ...new TextEncoder().encode(key));
    }
  }
  return Uint8Array.from(bytes);
}

function randomBody(next: () => number): Uint8Array<ArrayBuffer> {
  const length = Math.floor(next() * 600);
  return Uint8Array.from({ length }, () => (next() < 0.3 ? 10 : Math.floor(next() * 256)));
}

it(`answers ${CASES} hostile bodies with documented statuses and forwards only our own envelopes`, async () => {
  const next = random(20261122);
  const base = new TextEncoder().encode(validEnvelope(ownDsn));
  const statuses = new Map<number, number>();
  for (let index = 0; index < CASES; index++) {
    const body = index % 3 === 0 ? randomBody(next) : mutate(next, base);
    const request = new Request('http://app.test/monitoring', { method: 'POST', body });
    const { status } = await forwardEnvelope(request, options);
    expect(ALLOWED_STATUSES.has(status), `case ${index}: status ${status}`).toBe(true);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }

  const own = makeDsn(ownDsn);
  for (const body of forwarded) {
    const [header, items] = parseEnvelope(body);
    const dsn = makeDsn(String(header.dsn));
    expect(dsn && [dsn.host, dsn.port, dsn.projectId, dsn.publicKey]).toEqual(
      own && [own.host, own.port, own.projectId, own.publicKey],
    );
    expect(items.every(([itemHeader]) => !('dsn' in itemHeader))).toBe(true);
    // Read as a first-key-wins parser would, the header names our DSN too: it names one.
    const headerLine = body.subarray(0, body.indexOf(10)).toString();
    expect(headerLine.match(/"dsn"|"\\u0064sn"/g)).toHaveLength(1);
  }
  // The mix must exercise every branch, or the test proves less than it says.
  expect([...statuses.keys()].sort()).toEqual([200, 400, 403]);
  expect(forwarded.length).toBe(statuses.get(200));
  // Thousands of cases, the accepted ones forwarded over loopback: on a busy machine that takes
  // longer than vitest's default 5 s.
}, 60_000);
