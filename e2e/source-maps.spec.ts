import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures';
import { APP_BUILD_ENV } from './support/servers';
import { exceptionValue } from './support/sink';
import {
  debugIdOf,
  holdsAppCode,
  lineOf,
  mapsByDebugId,
  namedMapOf,
  scriptsBelow,
  sourcesOf,
  symbolicate,
  topInAppFrame,
} from './support/source-maps';

// The build on APP_URL was made without an auth token: its folder keeps the maps for an upload,
// and its standalone folder, the runtime image, is what the server runs and serves.
const distDir = APP_BUILD_ENV.NEXT_DIST_DIR;
const shippedDir = join(distDir, 'standalone', distDir);

test('a browser error and a server render error resolve through their debug IDs and the kept maps to the lines that throw', async ({
  page,
  sink,
}) => {
  await page.goto('/sentry-example-page');
  await page.getByRole('button', { name: 'Throw client error' }).click();
  const browserEvent = await sink.waitForErrorEvent(
    (event) => exceptionValue(event) === 'Sentry example error thrown in the browser',
  );
  await page.goto('/sentry-example-page/server-error');
  const serverEvent = await sink.waitForErrorEvent(
    (event) => exceptionValue(event) === 'Sentry example error thrown while rendering a server component',
  );

  const maps = mapsByDebugId(distDir);
  const browserFrame = topInAppFrame(browserEvent);
  // What the browser ran is the minified chunk, not the source.
  expect(browserFrame.filename).toMatch(/\/_next\/static\/chunks\/[^/]+\.js/);
  expect(symbolicate(browserEvent, browserFrame, maps)).toEqual({
    source: expect.stringMatching(/\/components\/sentry-examples\.tsx$/),
    line: lineOf('components/sentry-examples.tsx', "throw new SentryExampleError('in the browser')"),
  });

  const serverFrame = topInAppFrame(serverEvent);
  expect(serverFrame.filename).toMatch(/\/server\/chunks\/ssr\/[^/]+\.js$/);
  expect(symbolicate(serverEvent, serverFrame, maps)).toEqual({
    source: expect.stringMatching(/\/app\/sentry-example-page\/server-error\/page\.tsx$/),
    line: lineOf('app/sentry-example-page/server-error/page.tsx', 'throw new SentryExampleError('),
  });
});

test("every chunk the server runs or serves that holds the app's code carries a debug ID whose map the build kept", () => {
  const maps = mapsByDebugId(distDir);
  const covered = new Set<string>();
  for (const folder of ['static/chunks', 'server']) {
    for (const file of scriptsBelow(join(shippedDir, folder))) {
      const debugId = debugIdOf(readFileSync(join(shippedDir, folder, file), 'utf8'));
      if (debugId !== undefined) expect(maps.has(debugId), `${folder}/${file}: a map for ${debugId}`).toBe(true);
      // The build folder's copy still names its map.
      const map = namedMapOf(join(distDir, folder, file));
      if (map === undefined || !holdsAppCode(map)) continue;
      expect(debugId, `${folder}/${file} holds the app's code: its debug ID`).toEqual(expect.any(String));
      expect(map.debugId, `${folder}/${file}: its map's debug ID`).toBe(debugId);
      for (const source of sourcesOf(map)) covered.add(source);
    }
  }
  expect([...covered]).toEqual(
    expect.arrayContaining([
      'components/sentry-examples.tsx',
      'app/sentry-example-page/server-error/page.tsx',
      'instrumentation-client.ts',
      'instrumentation.ts',
      'proxy.ts',
    ]),
  );
});

test('the runtime image holds no source map, and what it serves names none', () => {
  const files = readdirSync(join(distDir, 'standalone'), { recursive: true, encoding: 'utf8' });
  expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
  const served = scriptsBelow(join(shippedDir, 'static'));
  expect(served.length).toBeGreaterThan(0);
  const naming = served.filter((file) =>
    readFileSync(join(shippedDir, 'static', file), 'utf8').includes('sourceMappingURL='),
  );
  expect(naming).toEqual([]);
  // The build folder keeps them for an upload.
  const kept = ['static', 'server'].flatMap((folder) =>
    readdirSync(join(distDir, folder), { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.js.map'),
    ),
  );
  expect(kept.length).toBeGreaterThan(0);
});
