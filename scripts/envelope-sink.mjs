// @ts-check
// A stand-in for Sentry's ingest on 127.0.0.1: it accepts envelopes the way Sentry does
// (POST /api/<project>/envelope/), decodes them with the SDK's own parser, and lets tests read
// what arrived. Plain JavaScript because Playwright's webServer runs it with bare Node.
import { createServer } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { parseEnvelope } from '@sentry/core';

const port = Number(process.argv[2] ?? 3199);

/** @type {Array<{ project: string, userAgent: string, connection: number, header: unknown, items: Array<{ header: Record<string, unknown>, payload: unknown }> }>} */
let received = [];
/** Items received since the sink started, by type: what the bench reads, without every envelope. */
const itemCounts = new Map();
/** How ingest behaves: healthy, or down (answering `status`), or slow (`delayMs` before answering). */
let mode = { status: 200, delayMs: 0 };

/**
 * @param {Buffer} body
 * @param {string | string[] | undefined} encoding
 */
function decode(body, encoding) {
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  if (encoding === 'br') return brotliDecompressSync(body);
  return body;
}

/** @param {unknown} payload */
function toJsonPayload(payload) {
  if (payload instanceof Uint8Array) {
    return { binaryLength: payload.byteLength };
  }
  return payload;
}

/** @param {import('node:http').IncomingMessage} request */
async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * @param {import('node:http').ServerResponse} response
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
function send(response, status, body, headers = {}) {
  let text;
  try {
    text = JSON.stringify(body);
  } catch (error) {
    // A hostile envelope kept here (a header nested thousands deep) must not take the stand-in down.
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ detail: `cannot serialise: ${error}` }));
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

/** Each connection's number, in the order they were opened: tests see which envelopes shared one. */
const connectionNumber = new WeakMap();
let connections = 0;
let refusedErrors = 0;

/**
 * Whether an envelope holds an error event (what a refusal count is about).
 * @param {Buffer} body
 * @param {string | string[] | undefined} encoding
 */
function hasErrorEvent(body, encoding) {
  try {
    return parseEnvelope(decode(body, encoding))[1].some(([header]) => header.type === 'event');
  } catch {
    return false;
  }
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  const ingest = url.pathname.match(/^\/api\/(\d+)\/envelope\/?$/);

  if (ingest && request.method === 'POST') {
    const body = await readBody(request);
    let isAbandoned = false;
    response.on('close', () => {
      isAbandoned = !response.writableFinished;
    });
    if (mode.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, mode.delayMs));
    // A sender that gave up on a slow ingest (the tunnel's timeout) did not deliver anything.
    if (isAbandoned) return;
    if (mode.status !== 200) {
      if (hasErrorEvent(body, request.headers['content-encoding'])) refusedErrors += 1;
      return send(response, mode.status, { detail: 'ingest is down (sink mode)' });
    }
    try {
      const [header, items] = parseEnvelope(decode(body, request.headers['content-encoding']));
      for (const [{ type }] of items) itemCounts.set(type, (itemCounts.get(type) ?? 0) + 1);
      received.push({
        project: ingest[1] ?? '',
        userAgent: String(request.headers['user-agent'] ?? ''),
        connection: connectionNumber.get(request.socket) ?? 0,
        header,
        items: items.map(([itemHeader, payload]) => ({ header: itemHeader, payload: toJsonPayload(payload) })),
      });
      send(response, 200, { id: header.event_id ?? null });
    } catch (error) {
      send(response, 400, { detail: `bad envelope: ${error}` });
    }
    return;
  }

  if (url.pathname === '/__sink/envelopes') {
    if (request.method === 'GET') return send(response, 200, received);
    if (request.method === 'DELETE') {
      received = [];
      return send(response, 200, { cleared: true });
    }
  }

  // A script served from another origin than the app's: an error it throws reaches the page's
  // onerror as the browser's generic cross-origin "Script error.".
  if (url.pathname === '/cross-origin-error.js') {
    response.writeHead(200, { 'content-type': 'text/javascript' });
    response.end('throw new Error("secret detail from another origin");');
    return;
  }

  if (url.pathname === '/__sink/counts' && request.method === 'GET')
    return send(response, 200, Object.fromEntries(itemCounts));

  // How many error envelopes were refused while down: a test knows a sender has tried.
  if (url.pathname === '/__sink/refused-errors' && request.method === 'GET')
    return send(response, 200, { refusedErrors });

  if (url.pathname === '/__sink/mode' && request.method === 'PUT') {
    mode = { status: 200, delayMs: 0, ...JSON.parse((await readBody(request)).toString() || '{}') };
    return send(response, 200, mode);
  }

  if (url.pathname === '/health') return send(response, 200, { ok: true });
  send(response, 404, { detail: 'not found' });
});

server.on('connection', (socket) => {
  connections += 1;
  connectionNumber.set(socket, connections);
});

server.listen(port, '127.0.0.1', () => {
  console.log(`envelope sink listening on http://127.0.0.1:${port}`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    // A sender's kept-alive connections would hold the close forever: a test that stops ingest means it.
    server.closeAllConnections();
  });
}
