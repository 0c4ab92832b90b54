import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SENTRY_RUNTIME_INSTRUMENTATIONS } from '@sentry/server-utils/orchestrion/config';
import { holdsInstrumentedEsModule } from '@/lib/observability/channel-injection';

const instrumentations = [
  { module: { name: 'pool-lib', filePath: 'lib/pool.js' } },
  { module: { name: 'dual-lib', filePath: 'dist/client.js' } },
  { module: { name: 'dual-lib', filePath: 'dist/client.mjs' } },
  { module: { name: '@scope/esm-lib', filePath: 'dist/index.js' } },
  { module: { name: 'patterned-lib', filePath: /dist\/[\w-]+\.m?js$/ } },
];

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'channel-injection-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Writes `files` (path to content) under the temporary node_modules. */
function install(files: Record<string, string>): string {
  const nodeModules = join(root, 'node_modules');
  mkdirSync(nodeModules, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(nodeModules, path)), { recursive: true });
    writeFileSync(join(nodeModules, path), content);
  }
  return nodeModules;
}

describe('whether a deployment needs the module hook for ES modules', () => {
  it('does not when the instrumented packages it holds are CommonJS', () => {
    const nodeModules = install({
      'pool-lib/package.json': '{}',
      'pool-lib/lib/pool.js': '',
      'dual-lib/package.json': '{}',
      'dual-lib/dist/client.js': '',
      'react/package.json': '{"type":"module"}',
      'react/index.mjs': '',
    });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(false);
  });

  it('does when a targeted file is an .mjs the package ships', () => {
    const nodeModules = install({ 'dual-lib/package.json': '{}', 'dual-lib/dist/client.mjs': '' });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
  });

  it('does when a targeted .js file is in a package of type module, scoped packages included', () => {
    const nodeModules = install({
      '@scope/esm-lib/package.json': '{"type":"module"}',
      '@scope/esm-lib/dist/index.js': '',
    });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
  });

  it('reads the package.json nearest the file, as Node does', () => {
    const nodeModules = install({
      'pool-lib/package.json': '{}',
      'pool-lib/lib/package.json': '{"type":"module"}',
      'pool-lib/lib/pool.js': '',
    });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
  });

  it('finds a targeted ES module in a copy nested under another package', () => {
    const nodeModules = install({
      'app-lib/package.json': '{}',
      'app-lib/node_modules/dual-lib/package.json': '{}',
      'app-lib/node_modules/dual-lib/dist/client.mjs': '',
    });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
  });

  it('does when a package is targeted by a pattern, which may match an ES module', () => {
    const nodeModules = install({ 'patterned-lib/package.json': '{}' });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
  });

  it("does for pnpm's store, whose packages it cannot list in full", () => {
    const nodeModules = install({ '.pnpm/lock.yaml': '' });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
  });

  it('does without a node_modules folder, where it cannot tell what the server loads', () => {
    expect(holdsInstrumentedEsModule(join(root, 'node_modules'), instrumentations)).toBe(true);
  });

  it('does when a targeted .js file without a package type uses module syntax, which Node loads as ES', () => {
    const nodeModules = install({
      'pool-lib/package.json': '{}',
      'pool-lib/lib/pool.js': "import { EventEmitter } from 'node:events';\nexport class Pool {}\n",
    });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
  });

  it('does not for a CommonJS file that only imports dynamically', () => {
    const nodeModules = install({
      'pool-lib/package.json': '{}',
      'pool-lib/lib/pool.js':
        "'use strict';\nconst load = () =>\n  import('node:events');\nmodule.exports = { load };\n",
    });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(false);
  });

  it('reads a linked folder once, also when a link leads back to it', () => {
    const nodeModules = install({
      'app-lib/package.json': '{}',
      'pool-lib/package.json': '{}',
      'pool-lib/lib/pool.js': '',
    });
    symlinkSync(nodeModules, join(nodeModules, 'app-lib', 'node_modules'));
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(false);
  });

  it("reads the installed generic-pool, which the example route uses, as CommonJS against Sentry's own list", () => {
    const nodeModules = install({});
    cpSync(join(process.cwd(), 'node_modules', 'generic-pool'), join(nodeModules, 'generic-pool'), { recursive: true });
    expect(holdsInstrumentedEsModule(nodeModules, SENTRY_RUNTIME_INSTRUMENTATIONS)).toBe(false);
    const manifest = join(nodeModules, 'generic-pool', 'package.json');
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), type: 'module' }));
    expect(holdsInstrumentedEsModule(nodeModules, SENTRY_RUNTIME_INSTRUMENTATIONS)).toBe(true);
  });
});
