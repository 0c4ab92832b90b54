import type { Request } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { DEPLOYMENT_ID } from './support/servers';

test('returning to /status within 30 s shows the page from the router cache', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Status' }).click();
  const renderedAt = await page.getByTestId('rendered-at').textContent();
  expect(renderedAt).not.toBeNull();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
  await expect(page.getByRole('heading', { name: 'About' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Status' }).click();
  await expect(page.getByTestId('rendered-at')).toHaveText(renderedAt ?? '');

  await page.goBack();
  await page.goBack();
  await expect(page).toHaveURL('/status');
  await expect(page.getByTestId('rendered-at')).toHaveText(renderedAt ?? '');

  // A full load is a new request, so the dynamic page is rendered anew.
  await page.reload();
  await expect(page.getByTestId('rendered-at')).not.toHaveText(renderedAt ?? '');
});

test('page-data fetches and server actions carry the deployment id', async ({ page }) => {
  const pageDataRequests: Request[] = [];
  page.on('request', (request) => {
    if (request.headers().rsc === '1') {
      pageDataRequests.push(request);
    }
  });

  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Status' }).click();
  await expect(page.getByTestId('rendered-at')).toBeVisible();
  expect(pageDataRequests.length).toBeGreaterThan(0);
  for (const request of pageDataRequests) {
    expect(await request.headerValue('x-deployment-id')).toBe(DEPLOYMENT_ID);
  }

  await page.goto('/sentry-example-page');
  const actionRequest = page.waitForRequest(
    (request) => request.method() === 'POST' && 'next-action' in request.headers(),
  );
  await page.getByRole('button', { name: 'Run failing server action' }).click();
  const action = await actionRequest;
  expect(await action.headerValue('next-action')).toMatch(/^[0-9a-f]{40,}$/);
  expect(await action.headerValue('x-deployment-id')).toBe(DEPLOYMENT_ID);
});
