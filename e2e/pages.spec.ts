import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { BARE_APP_URL, DEPLOYMENT_ID, RELEASE } from './support/servers';

async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
}

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the home page is rendered on the server with its navigation', async ({ page }) => {
    const response = await page.goto('/');
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Shell' })).toBeVisible();
    await expect(page.getByText('placeholders')).toBeVisible();
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Home', 'About', 'Status']) {
      await expect(nav.getByRole('link', { name })).toBeVisible();
    }
  });
});

test('the home page has no accessibility violations and no X-Powered-By header', async ({ page }) => {
  const response = await page.goto('/');
  expect(response?.headers()['x-powered-by']).toBeUndefined();
  await expectNoAxeViolations(page);
});

test('the about page is a static placeholder', async ({ page }) => {
  await page.goto('/about');
  await expect(page.getByRole('heading', { level: 1, name: 'About' })).toBeVisible();
  await expect(page.getByText('placeholder')).toBeVisible();
});

test('the status page tells when it was rendered, the deployment, the release and the reporting set-up', async ({
  page,
}) => {
  const before = Date.now();
  await page.goto('/status');
  const renderedAt = Date.parse((await page.getByTestId('rendered-at').getAttribute('datetime')) ?? '');
  expect(renderedAt).toBeGreaterThanOrEqual(before - 1_000);
  await expect(page.getByTestId('deployment-id')).toHaveText(DEPLOYMENT_ID);
  await expect(page.getByTestId('release')).toHaveText(RELEASE);
  await expect(page.getByTestId('reporting')).toHaveText('on');
  await expect(page.getByTestId('tunnel')).toHaveText('through the /monitoring tunnel');
});

test('an unknown URL answers 404 with our not-found screen, which links home and passes axe', async ({ page }) => {
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(page.getByText('This page could not be found')).toHaveCount(0);
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Go to the home page' }).click();
  await expect(page).toHaveURL('/');
});

test('the error screen passes axe', async ({ page }) => {
  await page.goto('/sentry-example-page/server-error');
  await expect(page.getByTestId('error-digest')).toBeVisible();
  await expectNoAxeViolations(page);
});

test('in production without ENABLE_SENTRY_EXAMPLES the example routes answer 404', async ({ page, request }) => {
  for (const path of ['/sentry-example-page', '/sentry-example-page/server-error']) {
    const response = await page.goto(`${BARE_APP_URL}${path}`);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  }
  const api = await request.get(`${BARE_APP_URL}/api/sentry-example-api`);
  expect(api.status()).toBe(404);
});
