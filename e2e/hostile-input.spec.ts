import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { errorEnvelope } from './support/envelopes';
import { expect, test } from './support/fixtures';
import { pipelinedAnswers, rawRequest, upgradeRequest } from './support/raw-http';
import { APP_URL, SENTRY_DSN } from './support/servers';

// Hostile requests against the production server, each with the answer we document. None may get
// a 5xx, none may put an event in Sentry, and the app must keep serving.

type Hostile = {
  name: string;
  expected: number;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
};

const manifest = JSON.parse(readFileSync('.next/server/server-reference-manifest.json', 'utf8')) as {
  node: Record<string, unknown>;
};
const actionId = Object.keys(manifest.node)[0] ?? '';
const action = (headers: Record<string, string>, body: string | Buffer = '[]') => ({
  path: '/sentry-example-page',
  method: 'POST',
  headers: { 'next-action': actionId, 'content-type': 'text/plain;charset=UTF-8', ...headers },
  body,
});
const gzipBomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
const twoMegabytes = Buffer.alloc(2 * 1024 * 1024, 'a');
// A form posted before hydration: Next takes any multipart POST as one, the action named in its fields.
const formPost = (headers: Record<string, string>, body: string | Buffer) => ({
  path: '/status',
  method: 'POST',
  headers: { 'content-type': 'multipart/form-data; boundary=x', ...headers },
  body,
});
const formField = (name: string) => `--x\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n\r\n--x--\r\n`;
const chunk = `/_next/static/chunks/${readdirSync('.next/static/chunks').find((name) => name.endsWith('.js'))}`;
const tunnel = (headers: Record<string, string>, body: string | Buffer, path = '/monitoring') => ({
  path,
  method: 'POST',
  headers,
  body,
});

const cases: Hostile[] = [
  { name: 'tunnel: a gzip bomb', expected: 415, ...tunnel({ 'content-encoding': 'gzip' }, gzipBomb) },
  { name: 'tunnel: a JSON body', expected: 415, ...tunnel({ 'content-type': 'application/json' }, '{}') },
  {
    name: 'tunnel: a form post',
    expected: 415,
    ...tunnel({ 'content-type': 'multipart/form-data; boundary=x' }, '--x--'),
  },
  { name: 'tunnel: a body over 1 MiB', expected: 413, ...tunnel({}, twoMegabytes) },
  { name: 'tunnel: binary garbage', expected: 400, ...tunnel({}, Buffer.from([0, 159, 146, 150, 10, 255])) },
  {
    name: 'tunnel: a DSN in the query string',
    expected: 403,
    ...tunnel({}, errorEnvelope(SENTRY_DSN, 'smuggled'), '/monitoring?dsn=https%3A%2F%2Fk%40evil.example%2F9'),
  },
  {
    name: 'tunnel: a second DSN in the next header line',
    expected: 403,
    ...tunnel({}, `{"dsn":"${SENTRY_DSN}"}\n{"dsn":"https://k@evil.example/9"}\n{}`),
  },
  { name: 'tunnel: PUT', expected: 405, path: '/monitoring', method: 'PUT', body: 'x' },
  // Methods no route handler takes: Next itself would answer 500 and log a stack.
  { name: 'TRACE on a route handler', expected: 405, path: '/api/health', method: 'TRACE' },
  { name: 'PROPFIND on a page', expected: 405, path: '/status', method: 'PROPFIND' },
  { name: 'action: an unknown id', expected: 409, ...action({ 'next-action': `${'00ff'.repeat(10)}00` }) },
  { name: 'action: a malformed id', expected: 400, ...action({ 'next-action': '../../etc/passwd' }) },
  { name: 'action: from a foreign Origin', expected: 403, ...action({ origin: 'https://evil.example' }) },
  { name: "action: a body over Next's limit", expected: 413, ...action({}, twoMegabytes) },
  { name: 'action: arguments that are not JSON', expected: 400, ...action({}, '{{{{') },
  { name: 'action: absurdly nested arguments', expected: 400, ...action({}, '['.repeat(100_000)) },
  {
    name: 'action: a broken multipart body',
    expected: 400,
    ...action({ 'content-type': 'multipart/form-data; boundary=x' }, 'garbage'),
  },
  // Well-formed JSON that React's client never writes: Next's decoder would fail inside the action.
  { name: 'action: arguments that are not a list', expected: 400, ...action({}, 'null') },
  { name: 'action: more arguments than Next takes', expected: 400, ...action({}, `[${'0,'.repeat(1000)}0]`) },
  { name: 'action: a reference to a part the body lacks', expected: 400, ...action({}, '["$@1"]') },
  { name: 'action: a BigInt that is not one', expected: 400, ...action({}, '["$n12x"]') },
  {
    name: 'action: a multipart body without its argument list',
    expected: 400,
    ...action(
      { 'content-type': 'multipart/form-data; boundary=x' },
      '--x\r\nContent-Disposition: form-data; name="1"\r\n\r\n"s"\r\n--x--\r\n',
    ),
  },
  {
    name: 'action: a Map whose part comes after the list',
    expected: 400,
    ...action(
      { 'content-type': 'multipart/form-data; boundary=x' },
      '--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$Q1"]\r\n--x\r\nContent-Disposition: form-data; name="1"\r\n\r\n[]\r\n--x--\r\n',
    ),
  },
  {
    // As React's client writes `[x, action.bind(null, x)]`: React would wait on itself, and the
    // request would hang.
    name: 'action: a server function bound to arguments that hold it',
    expected: 400,
    ...action(
      { 'content-type': 'multipart/form-data; boundary=x' },
      `--x\r\nContent-Disposition: form-data; name="2"\r\n\r\n${JSON.stringify({ id: actionId, bound: '$@1' })}\r\n--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n[{"a":1},"$h2"]\r\n--x\r\nContent-Disposition: form-data; name="1"\r\n\r\n["$0:0"]\r\n--x--\r\n`,
    ),
  },
  {
    // As React's client writes `[x, action.bind(null, action.bind(null, x))]`: the inner function's
    // bound arguments wait on the list, which waits on the outer function.
    name: 'action: a server function bound inside bound arguments that wait on what holds it',
    expected: 400,
    ...action(
      { 'content-type': 'multipart/form-data; boundary=x' },
      `--x\r\nContent-Disposition: form-data; name="2"\r\n\r\n${JSON.stringify({ id: actionId, bound: '$@1' })}\r\n--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n[{"a":1},"$h2"]\r\n--x\r\nContent-Disposition: form-data; name="4"\r\n\r\n${JSON.stringify({ id: actionId, bound: '$@3' })}\r\n--x\r\nContent-Disposition: form-data; name="1"\r\n\r\n["$h4"]\r\n--x\r\nContent-Disposition: form-data; name="3"\r\n\r\n["$0:0"]\r\n--x--\r\n`,
    ),
  },
  // Parts that Next's busboy reads otherwise than the Fetch API: checked as the Fetch API reads them,
  // they passed, and Next failed on them.
  ...(
    [
      ['a part in a charset of its own', 'Content-Type: text/plain; charset=utf-16le\r\n', '0'],
      ['a part typed as a file without a file name', 'Content-Type: application/octet-stream\r\n', '0'],
      ['a part named twice', 'Content-Disposition: form-data; name="0"\r\n', '9'],
    ] as const
  ).map(([what, header, name]) => ({
    name: `action: ${what}`,
    expected: 400,
    ...action(
      { 'content-type': 'multipart/form-data; boundary=x' },
      `--x\r\nContent-Disposition: form-data; name="${name}"\r\n${header}\r\n[]\r\n--x--\r\n`,
    ),
  })),
  {
    name: 'action: a base64 part',
    expected: 400,
    ...action(
      { 'content-type': 'multipart/form-data; boundary=x' },
      '--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$B1"]\r\n--x\r\nContent-Disposition: form-data; name="1"; filename="f"\r\nContent-Transfer-Encoding: base64\r\n\r\neA==\r\n--x--\r\n',
    ),
  },
  { name: 'action: a JSON content type', expected: 415, ...action({ 'content-type': 'application/json' }) },
  { name: 'form post: a body that is not multipart', expected: 400, ...formPost({}, 'garbage') },
  { name: 'form post: no boundary', expected: 400, ...formPost({ 'content-type': 'multipart/form-data' }, '--x--') },
  {
    name: 'form post: from a foreign Origin',
    expected: 403,
    ...formPost({ origin: 'https://evil.example' }, formField('a')),
  },
  { name: "form post: a body over Next's limit", expected: 413, ...formPost({}, twoMegabytes) },
  { name: 'form post: a gzip bomb', expected: 415, ...formPost({ 'content-encoding': 'gzip' }, gzipBomb) },
  // Well-formed: Next's own answers.
  { name: 'form post: fields that name no action', expected: 400, ...formPost({}, formField('a')) },
  {
    name: 'form post: an unknown action',
    expected: 409,
    ...formPost({}, formField(`$ACTION_ID_${'00ff'.repeat(10)}00`)),
  },
  // A route handler's own: no server action there, so no action guard (its limit would be 413).
  {
    name: 'a route handler: a 2 MB multipart upload',
    expected: 405,
    ...formPost({}, twoMegabytes),
    path: '/api/health',
  },
  { name: 'action: a gzip bomb', expected: 415, ...action({ 'content-encoding': 'gzip' }, gzipBomb) },
  // Next's static file server refuses these and Next answers its refusal as a 500 (vercel/next.js#92141).
  {
    name: 'a public file: a range past its end',
    expected: 416,
    path: '/robots.txt',
    headers: { range: 'bytes=999-1000' },
  },
  {
    name: 'a public file: a range that is not one',
    expected: 416,
    path: '/robots.txt',
    headers: { range: 'bytes=abc' },
  },
  {
    name: 'a public file: If-Match another version',
    expected: 412,
    path: '/robots.txt',
    headers: { 'if-match': '"x"' },
  },
  {
    name: 'a public file: If-Unmodified-Since 1970',
    expected: 412,
    path: '/robots.txt',
    headers: { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
  },
  { name: 'a chunk: a range past its end', expected: 416, path: chunk, headers: { range: 'bytes=99999999-' } },
  { name: 'a chunk: If-Match another version', expected: 412, path: chunk, headers: { 'if-match': '"x"' } },
  { name: 'a public file: a range inside it', expected: 206, path: '/robots.txt', headers: { range: 'bytes=0-3' } },
  // Next means 405 for a static file asked for with any other method than GET and HEAD, and answers 500.
  { name: 'a chunk: POST', expected: 405, path: chunk, method: 'POST', body: 'x' },
  { name: 'a public file: OPTIONS', expected: 405, path: '/robots.txt', method: 'OPTIONS' },
  { name: 'a public file: DELETE', expected: 405, path: '/robots.txt', method: 'DELETE' },
  // Next builds the error screen as a route of its own, which it renders as a page with a 500.
  { name: "Next's route for the error screen", expected: 404, path: '/_global-error' },
  { name: 'a 20 KB query string', expected: 431, path: `/?${'q'.repeat(20_000)}` },
  { name: 'a 5 KB path', expected: 404, path: `/${'p'.repeat(5_000)}` },
  { name: 'an encoded path traversal', expected: 404, path: '/..%2f..%2fetc%2fpasswd' },
  { name: 'a broken percent-encoding', expected: 404, path: '/%E0%A4%A' },
  { name: 'a NUL byte in the path', expected: 404, path: '/%00' },
  // A path the URL parser reads as a host: Next redirects it to the path with one slash.
  { name: 'a path of two slashes', expected: 308, path: '//' },
  { name: 'a path that reads as a host and port', expected: 308, path: '//a:b' },
  { name: 'a 20 KB header', expected: 431, path: '/', headers: { 'x-big': 'h'.repeat(20_000) } },
  // Many small headers are within Node's limits: the page is served as usual.
  {
    name: '300 headers',
    expected: 200,
    path: '/',
    headers: Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`x-flood-${index}`, 'v'])),
  },
];

test.describe.configure({ timeout: 60_000 });

test('every hostile request gets its documented answer, no 5xx, and nothing reaches Sentry', async ({
  request,
  sink,
}) => {
  const answers: string[] = [];
  for (const hostile of cases) {
    const response = await request.fetch(`${APP_URL}${hostile.path}`, {
      method: hostile.method ?? 'GET',
      headers: hostile.headers,
      data: hostile.body,
      maxRedirects: 0,
    });
    answers.push(`${hostile.name}: ${response.status()}`);
  }
  expect(answers).toEqual(cases.map((hostile) => `${hostile.name}: ${hostile.expected}`));

  // A control error sent last: once it has arrived, anything the hostile requests caused would have too.
  await request.post('/monitoring', { data: errorEnvelope(SENTRY_DSN, 'control after the hostile requests') });
  await sink.waitForErrorEvent((event) => event.message === 'control after the hostile requests');
  expect((await sink.errorEvents()).map((event) => event.message)).toEqual(['control after the hostile requests']);
  expect((await request.get('/status')).status()).toBe(200);
});

test("a static file's conditions that hold are answered as Next answers them, and the refusals carry our headers", async ({
  request,
}) => {
  const plain = await request.get('/robots.txt');
  const etag = plain.headers().etag ?? '';
  expect(etag).not.toBe('');
  expect((await request.get('/robots.txt', { headers: { 'if-match': etag } })).status()).toBe(200);
  expect((await request.get('/robots.txt', { headers: { 'if-none-match': etag } })).status()).toBe(304);
  const partial = await request.get('/robots.txt', { headers: { range: 'bytes=0-3', 'if-range': etag } });
  expect(partial.status()).toBe(206);
  expect(await partial.text()).toBe((await plain.text()).slice(0, 4));

  const refused = await request.get('/robots.txt', { headers: { range: 'bytes=999-1000' } });
  expect(refused.status()).toBe(416);
  expect(refused.headers()['content-range']).toBe(`bytes */${(await plain.body()).length}`);
  expect(refused.headers()['x-content-type-options']).toBe('nosniff');
  // A fresh copy makes the range moot: Next answers 304 before it reads the range.
  const fresh = await request.get('/robots.txt', { headers: { range: 'bytes=999-1000', 'if-none-match': etag } });
  expect(fresh.status()).toBe(304);
});

// Many requests at once, each unsampled, so that the sink gets no transaction for each.
const UNSAMPLED = { 'sentry-trace': `${'1'.repeat(32)}-${'2'.repeat(16)}-0` };

test('a client that takes none of its answers for 30 to 60 s has its connection closed, and one that reads again sooner gets every answer', async ({
  request,
}) => {
  test.setTimeout(150_000);
  // The page's largest script: a static file, which the server sends without rendering anything.
  const html = await (await request.get('/')).text();
  const scripts = [...html.matchAll(/<script src="(\/_next\/static\/[^"]+)"/g)].map(([, src]) => src ?? '');
  const sizes = await Promise.all(scripts.map(async (src) => (await (await request.get(src)).body()).length));
  const largest = Math.max(...sizes);
  const script = scripts[sizes.indexOf(largest)] ?? '';
  // Twice what the kernel's buffers can hold: the server's as far as this host lets them grow, the
  // client's as it starts (it grows only as the client reads). Within what one connection may queue.
  const buffer = (name: string, field: number) =>
    Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[field]);
  const buffers = buffer('tcp_wmem', 2) + buffer('tcp_rmem', 1);
  const count = Math.ceil((2 * buffers) / largest);
  // The first answer and the 64 a connection may queue behind it.
  test.skip(count > 65, `this host's TCP buffers take more than 65 of the largest script (${largest} bytes)`);
  const served = async (pauseMs: number) =>
    (await pipelinedAnswers(script, count, { headers: UNSAMPLED, pauseMs })).filter((answer) =>
      answer.startsWith('HTTP/1.1 200 OK\r\n'),
    ).length;
  const [stalled, paused] = await Promise.all([served(75_000), served(5_000)]);
  expect(paused).toBe(count);
  expect(stalled).toBeLessThan(count);
});

test('a client that queues more than 64 requests on one connection gets 429 for the next, and the connection closes after it', async () => {
  const answers = await pipelinedAnswers('/status', 200, { headers: UNSAMPLED });
  const statuses = answers.map((answer) => answer.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
  // The first request, and the 64 the connection may queue behind it, are answered. (Node may read
  // the requests in more than one go, and answers that ended meanwhile leave room.)
  expect(statuses.length).toBeGreaterThan(1 + 64);
  expect(statuses.length).toBeLessThan(200);
  expect(statuses.slice(0, -1).every((status) => status === '200')).toBe(true);
  const refused = answers.at(-1) ?? '';
  expect(refused).toMatch(/^HTTP\/1\.1 429 /);
  expect(refused).toMatch(/^retry-after: 1$/im);
  expect(refused).toMatch(/^connection: close$/im);
  expect(refused).toMatch(/^x-content-type-options: nosniff$/im);
  expect(refused).toContain('More than 64 requests wait on this connection');
});

test('a static file asked for with another method than GET or HEAD gets 405 with what it allows, and our headers', async ({
  request,
}) => {
  const refused = await request.fetch('/robots.txt', { method: 'PUT', data: 'x' });
  expect(refused.status()).toBe(405);
  expect(refused.headers().allow).toBe('GET, HEAD');
  expect(refused.headers()['x-content-type-options']).toBe('nosniff');
  // Not a static file: a page's own answer, as before.
  expect((await request.fetch('/about', { method: 'PUT' })).status()).toBe(405);
});

test("Next's route for the error screen, asked for by its path, is the not-found page", async ({ page }) => {
  const response = await page.goto('/_global-error');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  // Also by a path that only resolves to it, as Next resolves dot segments.
  for (const path of ['/x/../_global-error', '/%2e/_global-error', '/%5Fglobal-error', '/_global-error?_rsc=1']) {
    expect(await rawRequest(`GET ${path} HTTP/1.1`), path).toMatch(/^HTTP\/1\.1 404 /);
  }
});

test('CONNECT, which asks the server to be a proxy, gets 405 with the methods it takes, not a dropped connection', async () => {
  const answer = await rawRequest('CONNECT evil.example:443 HTTP/1.1');
  expect(answer).toMatch(/^HTTP\/1\.1 405 /);
  expect(answer).toMatch(/^allow: GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH$/im);
  expect(answer).toMatch(/^x-content-type-options: nosniff$/im);
});

test('a request asking to upgrade to WebSocket is answered as any request, with our headers, never left open', async () => {
  // Next sets its upgrade handling up at the first request it handles: this server has handled many.
  expect((await fetch(`${APP_URL}/about`)).status).toBe(200);
  const page = await upgradeRequest('/about');
  expect(page).toMatch(/^HTTP\/1\.1 200 /);
  expect(page).toMatch(/^content-security-policy: /im);
  const nowhere = await upgradeRequest('/no-such-socket');
  expect(nowhere).toMatch(/^HTTP\/1\.1 404 /);
  expect(nowhere).toMatch(/^x-content-type-options: nosniff$/im);
});

test('request targets that are not a path get 204 for OPTIONS *, 400 otherwise, and an absolute URL is served as its path', async () => {
  const options = await rawRequest('OPTIONS * HTTP/1.1');
  expect(options).toMatch(/^HTTP\/1\.1 204 /);
  expect(options).toMatch(/^allow: GET, HEAD, OPTIONS, POST, PUT, DELETE, PATCH$/im);
  expect(options).toMatch(/^x-content-type-options: nosniff$/im);
  const star = await rawRequest('GET * HTTP/1.1');
  expect(star).toMatch(/^HTTP\/1\.1 400 /);
  expect(star).toMatch(/^x-content-type-options: nosniff$/im);
  // Node's own parser refuses these before any handler sees them.
  for (const target of ['status', 'localhost:3100']) {
    expect(await rawRequest(`GET ${target} HTTP/1.1`), target).toMatch(/^HTTP\/1\.1 400 /);
  }
  // HTTP/1.1 servers must take a URL as the target (RFC 9112 3.2.2): Next redirected to its host.
  expect(await rawRequest('GET http://evil.example/status HTTP/1.1')).toMatch(/^HTTP\/1\.1 200 /);
});
