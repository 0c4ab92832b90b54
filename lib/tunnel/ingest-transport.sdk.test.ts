import { once } from 'node:events';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as Sentry from '@sentry/nextjs';
import { ingestTransport } from '@/lib/tunnel/ingest-transport';

// An ingest stand-in on loopback that takes everything, and the paths it was asked for.
const paths: string[] = [];
const ingest = createServer((request, response) => {
  paths.push(request.url ?? '');
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
let origin = '';

beforeAll(async () => {
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  origin = `http://127.0.0.1:${(ingest.address() as AddressInfo).port}`;
  // As `next dev` sets the server up: the `Http` integration watches every request the process makes.
  Sentry.init({
    dsn: `http://key@${origin.slice('http://'.length)}/1`,
    defaultIntegrations: false,
    integrations: [Sentry.httpIntegration({ spans: false })],
    enableOpenTelemetrySetup: false,
    enableRuntimeChannelInjection: false,
    transport: ingestTransport(2_000),
  });
});
afterAll(async () => {
  await Sentry.close();
  ingest.closeAllConnections();
  ingest.close();
});

function breadcrumbUrls(scope: Sentry.Scope): string[] {
  return scope.getScopeData().breadcrumbs.map((breadcrumb) => String(breadcrumb.data?.url ?? ''));
}

describe('the server SDK transport over the ingest client, under the Http integration', () => {
  it('sends with tracing suppressed: its requests leave no breadcrumb, where any other request does', async () => {
    await Sentry.withIsolationScope(async (scope) => {
      // The integration records a request the app makes: without that, the check below proves nothing.
      await new Promise<void>((resolve) =>
        get(`${origin}/elsewhere`, (response) => response.resume().on('end', resolve)),
      );
      await expect.poll(() => breadcrumbUrls(scope)).toEqual([`${origin}/elsewhere`]);

      Sentry.captureMessage('reported through the ingest client');
      expect(await Sentry.flush(2_000)).toBe(true);
      expect(paths.filter((path) => path.startsWith('/api/1/envelope/'))).toHaveLength(1);
      expect(breadcrumbUrls(scope)).toEqual([`${origin}/elsewhere`]);
    });
  });
});
