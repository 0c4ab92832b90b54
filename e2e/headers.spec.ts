import type { APIResponse } from '@playwright/test';
import { errorEnvelope } from './support/envelopes';
import { expect, test } from './support/fixtures';
import { DEPLOYMENT_ID, SENTRY_DSN } from './support/servers';

function expectSecurityHeaders(response: APIResponse) {
  const headers = response.headers();
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(headers['permissions-policy']).toContain('camera=()');
  expect(headers['cross-origin-opener-policy']).toBe('same-origin');
  expect(headers['cross-origin-resource-policy']).toBe('same-origin');
  const csp = headers['content-security-policy'] ?? '';
  for (const directive of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'", "form-action 'self'"]) {
    expect(csp).toContain(directive);
  }
  const scriptSources = csp.split(';').find((directive) => directive.trim().startsWith('script-src')) ?? '';
  expect(scriptSources).toContain("'self'");
  expect(scriptSources).not.toContain('unsafe');
  expect(csp).toContain('report-uri /api/csp-report');
  expect(headers['x-powered-by']).toBeUndefined();
  // Served over plain HTTP here, and HSTS_MAX_AGE_SECONDS is unset.
  expect(headers['strict-transport-security']).toBeUndefined();
}

const routeKinds: [string, string][] = [
  ['a static page', '/'],
  ['a dynamic page', '/status'],
  ['the not-found page', '/no-such-page'],
  ['a route handler', '/api/health'],
  ['a public file', '/robots.txt'],
];

for (const [kind, path] of routeKinds) {
  test(`${kind} carries the security headers`, async ({ request }) => {
    const response = await request.get(path);
    expect(response.status(), path).toBe(path === '/no-such-page' ? 404 : 200);
    expectSecurityHeaders(response);
  });
}

test('the tunnel carries the security headers, on success and on refusal', async ({ request }) => {
  const forwarded = await request.post('/monitoring', { data: errorEnvelope(SENTRY_DSN, 'headers check') });
  expect(forwarded.status()).toBe(200);
  expectSecurityHeaders(forwarded);
  const refused = await request.post('/monitoring', { data: 'not an envelope' });
  expect(refused.status()).toBe(400);
  expectSecurityHeaders(refused);
});

test('a static asset carries the security headers', async ({ request }) => {
  const html = await (await request.get('/')).text();
  const script = /<script[^>]+src="(\/_next\/static\/[^"]+)"/.exec(html)?.[1];
  expect(script).toBeDefined();
  expectSecurityHeaders(await request.get(script?.replaceAll('&amp;', '&') ?? ''));
});

test('production serves no source map and no server source', async ({ request }) => {
  const html = await (await request.get('/')).text();
  const scripts = [...html.matchAll(/<script[^>]+src="(\/_next\/static\/[^"?]+)/g)].map(([, source]) => source);
  expect(scripts.length).toBeGreaterThan(0);
  for (const script of scripts) {
    expect((await request.get(`${script}.map`)).status(), `${script}.map`).toBe(404);
  }
  for (const path of [
    '/_next/static/../server/app/page.js',
    '/_next/static/%2e%2e/server/app/page.js',
    '/_next/server/app/page.js',
    '/_next/static/../../next.config.ts',
    '/_next/static/%2e%2e/%2e%2e/package.json',
  ]) {
    const response = await request.get(path);
    expect([400, 404], path).toContain(response.status());
  }
});

test('a router request keeps the headers Next’s router reads, the deployment id among them', async ({ page }) => {
  const routerResponse = page.waitForResponse((response) => response.request().headers().rsc === '1');
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  const headers = await (await routerResponse).allHeaders();
  expect(headers['x-nextjs-deployment-id']).toBe(DEPLOYMENT_ID);
});
