import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startSentryApiStandIn } from '../scripts/sentry-api-stand-in.mjs';
import { buildApp } from './support/app-process';
import { expect, test } from './support/fixtures';
import { APP_BUILD_ENV, SENTRY_DSN } from './support/servers';
import { debugIdOf, filesBelow, type SourceMap, scriptsBelow, sourcesOf } from './support/source-maps';

// The README's deploy-step upload, for a build made without a token (README, "Connect a real
// Sentry project"); the test runs it as written.
const README_UPLOAD_COMMAND =
  'npx sentry sourcemap upload .next --ignore standalone/,cache/,build/ --release "$SENTRY_RELEASE"';

const TOKEN = 'sntrys_stand-in-token';
const ORG = 'acme';
const PROJECT = 'shell';

type StandIn = Awaited<ReturnType<typeof startSentryApiStandIn>>;

/** What Sentry's upload needs in its environment, pointed at the stand-in, quiet and self-contained. */
function uploadEnv(standIn: StandIn, configDir: string): Record<string, string> {
  return {
    SENTRY_AUTH_TOKEN: TOKEN,
    SENTRY_ORG: ORG,
    SENTRY_PROJECT: PROJECT,
    SENTRY_URL: standIn.url,
    // The CLI's own cache of API answers, which would otherwise outlive the stand-in's port.
    SENTRY_CONFIG_DIR: configDir,
    SENTRY_CLI_NO_TELEMETRY: '1',
    SENTRY_CLI_NO_UPDATE_CHECK: '1',
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

/** The debug IDs of the chunks a build's standalone folder (the runtime image) runs and serves. */
function shippedDebugIds(buildDir: string): Map<string, string> {
  const shipped = join(buildDir, 'standalone', basename(buildDir));
  const ids = new Map<string, string>();
  for (const folder of ['static/chunks', 'server']) {
    for (const file of scriptsBelow(join(shipped, folder))) {
      const id = debugIdOf(readFileSync(join(shipped, folder, file), 'utf8'));
      if (id !== undefined) ids.set(id, `${folder}/${file}`);
    }
  }
  return ids;
}

/** The source maps the stand-in received, by debug ID. */
function uploadedMaps(standIn: StandIn): Map<string, SourceMap> {
  const maps = new Map<string, SourceMap>();
  for (const bundle of standIn.received.bundles) {
    expect(bundle).toMatchObject({ org: ORG, projects: [PROJECT] });
    for (const file of bundle.files) {
      if (file.type !== 'source_map' || file.debugId === undefined) continue;
      const map = JSON.parse(file.content) as SourceMap;
      expect(map.debugId ?? file.debugId, file.path).toBe(file.debugId);
      maps.set(file.debugId, map);
    }
  }
  return maps;
}

/** Every shipped chunk has its map at the stand-in, and the maps hold both example throws. */
function expectEveryShippedChunkUploaded(buildDir: string, standIn: StandIn) {
  const shipped = shippedDebugIds(buildDir);
  const maps = uploadedMaps(standIn);
  expect(shipped.size).toBeGreaterThan(10);
  const missing = [...shipped].filter(([id]) => !maps.has(id)).map(([, file]) => file);
  expect(missing, 'shipped chunks whose map was not uploaded').toEqual([]);
  const sources = new Set([...shipped.keys()].flatMap((id) => sourcesOf(maps.get(id) ?? {})));
  expect([...sources]).toEqual(
    expect.arrayContaining(['components/sentry-examples.tsx', 'app/sentry-example-page/server-error/page.tsx']),
  );
  expect(standIn.received.refused).toEqual([]);
  expect(standIn.received.unhandled).toEqual([]);
}

let standIn: StandIn;
let configDir: string;

test.beforeEach(async () => {
  standIn = await startSentryApiStandIn({ token: TOKEN });
  configDir = mkdtempSync(join(tmpdir(), 'sentry-cli-config-'));
});

test.afterEach(async () => {
  await standIn.close();
  rmSync(configDir, { recursive: true, force: true });
});

test('npm run build with SENTRY_AUTH_TOKEN uploads the maps of every shipped chunk, makes the release, and keeps no .map', async () => {
  test.setTimeout(300_000);
  const distDir = '.next-upload';
  const build = await buildApp({
    ...uploadEnv(standIn, configDir),
    NEXT_DIST_DIR: distDir,
    NEXT_PUBLIC_SENTRY_DSN: SENTRY_DSN,
    SENTRY_RELEASE: 'upload-release',
  });
  expect(build.code, build.output).toBe(0);

  expectEveryShippedChunkUploaded(distDir, standIn);
  expect(standIn.received.bundles.every((bundle) => bundle.release === 'upload-release')).toBe(true);
  expect(standIn.received.releases).toEqual([{ version: 'upload-release', projects: [PROJECT], finalized: true }]);
  expect(filesBelow(distDir, '.map')).toEqual([]);
});

test("the README's deploy-step command uploads the maps a build without a token kept, for every chunk it ships", async () => {
  test.setTimeout(120_000);
  expect(readFileSync('README.md', 'utf8')).toContain(README_UPLOAD_COMMAND);
  // A copy of the build on APP_URL, standing in for the CI workspace that built it; the command
  // runs from the project's root, where `npx` finds the Sentry CLI.
  const distDir = APP_BUILD_ENV.NEXT_DIST_DIR;
  const workspace = mkdtempSync(join(tmpdir(), 'upload-after-build-'));
  try {
    cpSync(distDir, join(workspace, '.next'), { recursive: true, filter: (path) => !path.endsWith('/cache') });
    symlinkSync(resolve('node_modules'), join(workspace, 'node_modules'));
    const upload = await promisify(execFile)('bash', ['-c', README_UPLOAD_COMMAND], {
      cwd: workspace,
      env: { ...process.env, ...uploadEnv(standIn, configDir), SENTRY_RELEASE: 'deployed-release' },
    }).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout,
      stderr: error.stderr,
      failed: true,
    }));
    expect('failed' in upload ? upload : 'ok').toBe('ok');

    expectEveryShippedChunkUploaded(join(workspace, '.next'), standIn);
    expect(standIn.received.bundles.map((bundle) => bundle.release)).toContain('deployed-release');
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});
