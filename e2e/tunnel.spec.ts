import { errorEnvelope as envelope } from './support/envelopes';
import { expect, test } from './support/fixtures';
import { connectionToApp } from './support/raw-http';
import { APP_URL, SENTRY_DSN } from './support/servers';

const foreignDsns = {
  'another host': 'https://e2e0public0key@o1.ingest.sentry.io/1',
  'another project on our host': SENTRY_DSN.replace(/\/1$/, '/2'),
  'another key for our project': SENTRY_DSN.replace('e2e0public0key', 'stolen0key'),
};

test('an envelope for our own DSN is forwarded to ingest', async ({ request, sink }) => {
  const response = await request.post('/monitoring', { data: envelope(SENTRY_DSN, 'forwarded on purpose') });
  expect(response.status()).toBe(200);
  await sink.waitForErrorEvent((event) => event.message === 'forwarded on purpose');
});

for (const [kind, dsn] of Object.entries(foreignDsns)) {
  test(`an envelope for ${kind} is refused with 403 and reaches nothing`, async ({ request, sink }) => {
    const response = await request.post('/monitoring', { data: envelope(dsn, `relayed for ${kind}`) });
    expect(response.status()).toBe(403);
    expect(await response.text()).toBe('Envelope is not for this project');

    // A control envelope sent after it arrives; the refused one must not be there with it.
    await request.post('/monitoring', { data: envelope(SENTRY_DSN, 'control') });
    await sink.waitForErrorEvent((event) => event.message === 'control');
    expect((await sink.errorEvents()).map((event) => event.message)).toEqual(['control']);
  });
}

test('a body that is not an envelope is refused with 400 and reaches nothing', async ({ request, sink }) => {
  for (const body of ['hello', '{"dsn": 5}\n{}', '\u0000\u0001\u0002', '{}']) {
    const response = await request.post('/monitoring', { data: body });
    expect(response.status(), `for body ${JSON.stringify(body)}`).toBe(400);
  }
  await request.post('/monitoring', { data: envelope(SENTRY_DSN, 'control') });
  await sink.waitForErrorEvent((event) => event.message === 'control');
  expect((await sink.errorEvents()).map((event) => event.message)).toEqual(['control']);
});

test('the tunnel answers only POST, its refusal with the security headers every response carries', async ({
  request,
}) => {
  const response = await request.get('/monitoring');
  expect(response.status()).toBe(405);
  expect(response.headers()).toMatchObject({
    allow: 'POST',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  });
  expect(response.headers()['content-security-policy']).toContain("default-src 'self'");
});

test('a tunnel upload that stalls gets 408 and its connection closed within the body deadline, while pages answer', async () => {
  const slow = await connectionToApp();
  const startedAt = Date.now();
  slow.write('POST /monitoring HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{"dsn":');
  let answer = '';
  slow.on('data', (chunk: Buffer) => {
    answer += chunk.toString();
  });
  const closed = new Promise((resolve) => slow.once('close', resolve));

  const page = await fetch(`${APP_URL}/about`);
  expect(page.status).toBe(200);
  expect(Date.now() - startedAt).toBeLessThan(2_000);

  await closed;
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  // The deadline is 10 s: well before Node's own limits.
  expect(Date.now() - startedAt).toBeLessThan(15_000);
});

test('an upload declared over the cap gets 413 and its connection closed, rather than read on while the client sends', async () => {
  const upload = await connectionToApp();
  const startedAt = Date.now();
  upload.write('POST /monitoring HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000000\r\n\r\n');
  // A client that keeps sending, as a slow upload would.
  const sending = setInterval(() => {
    if (!upload.destroyed) upload.write('x'.repeat(100));
  }, 200);
  let answer = '';
  upload.on('data', (chunk: Buffer) => {
    answer += chunk.toString();
  });
  upload.on('error', () => undefined);
  await new Promise((resolve) => upload.once('close', resolve));
  clearInterval(sending);
  expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  // Read on, the body would have held the connection until the request timeout (30 s).
  expect(Date.now() - startedAt).toBeLessThan(5_000);
});
