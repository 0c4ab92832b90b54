import packageJson from '../package.json' with { type: 'json' };
import { expect, test } from './support/fixtures';
import { DEPLOYMENT_ID, RELEASE } from './support/servers';

test('liveness answers 200 with the version, release, deployment id and spool state, never cached', async ({
  request,
}) => {
  const response = await request.get('/api/health');
  expect(response.status()).toBe(200);
  expect(response.headers()['cache-control']).toBe('no-store');
  const body = await response.json();
  expect(body).toEqual({
    status: 'ok',
    version: packageJson.version,
    release: RELEASE,
    deploymentId: DEPLOYMENT_ID,
    spool: 'ok',
  });
});

test('readiness answers 200 while the server is serving', async ({ request }) => {
  const response = await request.get('/api/ready');
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: 'ready' });
});
