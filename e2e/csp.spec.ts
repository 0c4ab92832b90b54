import { request as httpRequest } from 'node:http';
import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { APP_URL } from './support/servers';

/** Records every CSP violation the page sees, from before its first script runs. */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  await page.exposeFunction('reportViolationToTest', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { reportViolationToTest(text: string): void }).reportViolationToTest(
        `${event.effectiveDirective} blocked ${event.blockedURI}`,
      );
    });
  });
  return violations;
}

function scriptSources(policy: string | undefined): string[] {
  return (
    (policy ?? '')
      .split(';')
      .find((directive) => directive.trim().startsWith('script-src'))
      ?.trim()
      .split(' ') ?? []
  );
}

for (const [kind, path, status, next] of [
  ['the static home page', '/', 200, 'About'],
  ['the static about page', '/about', 200, 'Status'],
  ['the dynamic status page', '/status', 200, 'About'],
  ['the not-found page', '/no-such-page', 404, 'Home'],
  // Next routes a path as sent: this is not the about page, but the not-found one.
  ['the not-found page, for an escaped spelling of a prerendered page', '/%61bout', 404, 'Home'],
] as const) {
  test(`${kind} hydrates under the production CSP with no violation`, async ({ page }) => {
    const violations = await watchViolations(page);
    const response = await page.goto(path);
    expect(response?.status()).toBe(status);
    const sources = scriptSources(response?.headers()['content-security-policy']);
    expect(sources[0]).toBe('script-src');
    expect(sources.filter((source) => source.includes('unsafe'))).toEqual([]);

    // A client-side navigation works only once React has hydrated the page: the marker survives it.
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: next }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(next === 'Home' ? 'Shell' : next);
    expect(await page.evaluate(() => 'notReloaded' in window)).toBe(true);
    expect(violations).toEqual([]);
  });
}

test('the server error screen renders under the production CSP with no violation', async ({ page }) => {
  const violations = await watchViolations(page);
  await page.goto('/sentry-example-page/server-error');
  await expect(page.getByTestId('error-digest')).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(violations).toEqual([]);
});

test('a static page keeps its prerendered HTML, its inline scripts allowed by hash', async ({ request }) => {
  const first = await request.get('/about');
  const second = await request.get('/about');
  expect(await first.text()).toBe(await second.text());
  expect(await first.text()).not.toContain('nonce=');
  const sources = scriptSources(first.headers()['content-security-policy']);
  expect(sources.some((source) => source.startsWith("'sha256-"))).toBe(true);
});

test('a dynamic page gets a fresh nonce on each request, on its scripts and in its policy', async ({ request }) => {
  const nonces = await Promise.all(
    [1, 2].map(async () => {
      const response = await request.get('/status');
      const nonce = /'nonce-([^']+)'/.exec(response.headers()['content-security-policy'] ?? '')?.[1];
      expect(nonce).toBeDefined();
      expect(await response.text()).toContain(`nonce="${nonce}"`);
      return nonce;
    }),
  );
  expect(nonces[0]).not.toBe(nonces[1]);
});

test('a nonce the client sends in its own CSP header is not used', async ({ request }) => {
  const response = await request.get('/status', {
    headers: { 'content-security-policy': "script-src 'nonce-attackerchosen'" },
  });
  expect(await response.text()).not.toContain('attackerchosen');
});

test('a script injected into a page is blocked and reported to Sentry through our endpoint', async ({ page, sink }) => {
  await page.goto('/about');
  const report = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/csp-report');
  await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.injected = true';
    document.body.append(script);
  });
  expect((await (await report).response())?.status()).toBe(204);
  expect(await page.evaluate(() => 'injected' in window)).toBe(false);

  const event = await sink.waitForErrorEvent(
    (candidate) => candidate.message?.startsWith('Content Security Policy') ?? false,
  );
  expect(event.message).toBe('Content Security Policy: script-src-elem blocked inline');
  expect(event.level).toBe('warning');
  expect(event.tags?.['csp.directive']).toBe('script-src-elem');
  expect(event.contexts?.csp).toMatchObject({ documentUrl: expect.stringMatching(/\/about$/) });
});

test('the report endpoint answers what is not a report with a 4xx and a reason', async ({ request }) => {
  const wrongType = await request.post('/api/csp-report', { data: 'hello', headers: { 'content-type': 'text/plain' } });
  expect(wrongType.status()).toBe(415);
  const malformed = await request.post('/api/csp-report', {
    data: '{"csp-report": "no"}',
    headers: { 'content-type': 'application/csp-report' },
  });
  expect(malformed.status()).toBe(400);
  expect(await malformed.text()).toBe('Not a CSP violation report');
});

/** POSTs a CSP report from the loopback address `from`; resolves with the status. */
function postReportFrom(from: string): Promise<number> {
  // A report about another site's page: taken (204), never sent on, so the sink stays quiet.
  const body = JSON.stringify({
    'csp-report': {
      'document-uri': 'https://elsewhere.example/',
      'effective-directive': 'script-src-elem',
      'blocked-uri': 'inline',
    },
  });
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${APP_URL.replace('localhost', '127.0.0.1')}/api/csp-report`,
      { method: 'POST', localAddress: from, headers: { 'content-type': 'application/csp-report' } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

test("each client's report allowance keys on its own socket address, through Next's routing", async () => {
  const statuses: number[] = [];
  for (let report = 0; report <= 30; report++) statuses.push(await postReportFrom('127.0.0.2'));
  expect(statuses.slice(0, 30).every((status) => status === 204)).toBe(true);
  expect(statuses.at(-1)).toBe(429);
  // Another address has its own allowance: the route saw the socket's address, not one shared key.
  expect(await postReportFrom('127.0.0.3')).toBe(204);
});
