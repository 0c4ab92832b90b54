import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { registerDiagnosticsChannelInjection as registerWithModuleHook } from '@sentry/server-runtime-injection';
import { SENTRY_RUNTIME_INSTRUMENTATIONS } from '@sentry/server-utils/orchestrion/config';
import { registerChannelInjectionForCommonJs } from '@/lib/framework-internals.mjs';
import { holdsInstrumentedEsModule, registerDiagnosticsChannelInjection } from '@/lib/observability/channel-injection';

// Folder reads are counted; the registrations are stand-ins, so nothing here patches Node's loader.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, readdirSync: vi.fn(fs.readdirSync) };
});
vi.mock('@sentry/server-runtime-injection', () => ({ registerDiagnosticsChannelInjection: vi.fn() }));
vi.mock('@/lib/framework-internals.mjs', () => ({ registerChannelInjectionForCommonJs: vi.fn() }));
const mode = vi.hoisted(() => ({ isProduction: false }));
vi.mock('@/lib/env', () => ({
  get isProduction() {
    return mode.isProduction;
  },
}));

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
  it.each<[string, Record<string, string>, boolean]>([
    [
      'does not when the instrumented packages it holds are CommonJS',
      {
        'pool-lib/package.json': '{}',
        'pool-lib/lib/pool.js': '',
        'dual-lib/package.json': '{}',
        'dual-lib/dist/client.js': '',
        'react/package.json': '{"type":"module"}',
        'react/index.mjs': '',
      },
      false,
    ],
    [
      'does when a targeted file is an .mjs the package ships',
      { 'dual-lib/package.json': '{}', 'dual-lib/dist/client.mjs': '' },
      true,
    ],
    [
      'does when a targeted .js file is in a package of type module, scoped packages included',
      { '@scope/esm-lib/package.json': '{"type":"module"}', '@scope/esm-lib/dist/index.js': '' },
      true,
    ],
    [
      'reads the package.json nearest the file, as Node does',
      { 'pool-lib/package.json': '{}', 'pool-lib/lib/package.json': '{"type":"module"}', 'pool-lib/lib/pool.js': '' },
      true,
    ],
    [
      'finds a targeted ES module in a copy nested under another package',
      {
        'app-lib/package.json': '{}',
        'app-lib/node_modules/dual-lib/package.json': '{}',
        'app-lib/node_modules/dual-lib/dist/client.mjs': '',
      },
      true,
    ],
    [
      'does when a package is targeted by a pattern, which may match an ES module',
      { 'patterned-lib/package.json': '{}' },
      true,
    ],
    ["does for pnpm's store, whose packages it cannot list in full", { '.pnpm/lock.yaml': '' }, true],
    [
      'does when a targeted .js file without a package type uses module syntax, which Node loads as ES',
      {
        'pool-lib/package.json': '{}',
        'pool-lib/lib/pool.js': "import { EventEmitter } from 'node:events';\nexport class Pool {}\n",
      },
      true,
    ],
    [
      'does for a .js file without a package type that reads import.meta',
      { 'pool-lib/package.json': '{}', 'pool-lib/lib/pool.js': 'const here = new URL(import.meta.url);\n' },
      true,
    ],
    [
      'does for module syntax that a minifier put mid-line, or after a comment',
      { 'pool-lib/package.json': '{}', 'pool-lib/lib/pool.js': '/*! pool */var Pool=1;export{Pool};' },
      true,
    ],
    [
      'does for an import after a licence comment on the same line',
      { 'pool-lib/package.json': '{}', 'pool-lib/lib/pool.js': '/*! pool */import{EventEmitter}from"node:events";' },
      true,
    ],
    [
      'does for a top-level await, which Node also loads as an ES module',
      { 'pool-lib/package.json': '{}', 'pool-lib/lib/pool.js': "const events = await import('node:events');\n" },
      true,
    ],
    [
      'does not for CommonJS with a hashbang and async functions that await',
      {
        'pool-lib/package.json': '{}',
        'pool-lib/lib/pool.js': '#!/usr/bin/env node\nmodule.exports = async function acquire() { await null; };\n',
      },
      false,
    ],
    [
      'does not for a CommonJS file that only imports dynamically',
      {
        'pool-lib/package.json': '{}',
        'pool-lib/lib/pool.js':
          "'use strict';\nconst load = () =>\n  import('node:events');\nmodule.exports = { load };\n",
      },
      false,
    ],
    [
      'does not for CommonJS whose lines start with exports or with names that begin with import',
      {
        'pool-lib/package.json': '{}',
        'pool-lib/lib/pool.js': "'use strict';\nexports.Pool = Pool;\nimporter.load();\nexport_names();\n",
      },
      false,
    ],
  ])('%s', (_, files, expected) => {
    expect(holdsInstrumentedEsModule(install(files), instrumentations)).toBe(expected);
  });

  it('does without a node_modules folder, where it cannot tell what the server loads', () => {
    expect(holdsInstrumentedEsModule(join(root, 'node_modules'), instrumentations)).toBe(true);
  });

  it('reads a linked folder once, also when a link leads back to it', () => {
    const nodeModules = install({
      'app-lib/package.json': '{}',
      'pool-lib/package.json': '{}',
      'pool-lib/lib/pool.js': '',
    });
    symlinkSync(nodeModules, join(nodeModules, 'app-lib', 'node_modules'));
    vi.mocked(readdirSync).mockClear();
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(false);
    const reads = vi.mocked(readdirSync).mock.calls.map(([folder]) => realpathSync(String(folder)));
    expect(reads.filter((folder) => folder === realpathSync(nodeModules))).toHaveLength(1);
  });

  it('does when a targeted file cannot be read', () => {
    const nodeModules = install({ 'pool-lib/package.json': '{}' });
    mkdirSync(join(nodeModules, 'pool-lib', 'lib', 'pool.js'), { recursive: true });
    expect(holdsInstrumentedEsModule(nodeModules, instrumentations)).toBe(true);
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

describe('the registration the SDK gets', () => {
  afterEach(() => {
    mode.isProduction = false;
  });

  /** Which registration runs for a server started in a folder whose node_modules holds `files`. */
  function registrationFor(isProduction: boolean, files: Record<string, string>): 'sentry' | 'commonjs-only' {
    mode.isProduction = isProduction;
    install(files);
    vi.spyOn(process, 'cwd').mockReturnValue(root);
    registerDiagnosticsChannelInjection();
    const calls = [
      vi.mocked(registerWithModuleHook).mock.calls,
      vi.mocked(registerChannelInjectionForCommonJs).mock.calls,
    ];
    expect(calls.flat()).toHaveLength(1);
    return calls[0]?.length === 1 ? 'sentry' : 'commonjs-only';
  }

  const commonJsPool = { 'generic-pool/package.json': '{}', 'generic-pool/lib/Pool.js': "'use strict';\n" };

  it("is Sentry's own under next dev, which can load anything installed, above its folder too", () => {
    expect(registrationFor(false, commonJsPool)).toBe('sentry');
  });

  it('is the CommonJS-only one in production when the working folder holds no instrumented ES module', () => {
    expect(registrationFor(true, commonJsPool)).toBe('commonjs-only');
    expect(registerChannelInjectionForCommonJs).toHaveBeenCalledWith(
      registerWithModuleHook,
      expect.anything(),
      process.versions.node,
    );
  });

  it("is Sentry's own in production when the working folder holds one", () => {
    const openAi = { 'openai/package.json': '{}', 'openai/resources/embeddings.mjs': 'export {};\n' };
    expect(registrationFor(true, openAi)).toBe('sentry');
  });
});
