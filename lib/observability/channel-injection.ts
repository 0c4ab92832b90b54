import 'server-only';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';
import { registerDiagnosticsChannelInjection as registerWithModuleHook } from '@sentry/server-runtime-injection';
import { SENTRY_RUNTIME_INSTRUMENTATIONS } from '@sentry/server-utils/orchestrion/config';
import { isProduction } from '@/lib/env';
import { registerChannelInjectionForCommonJs } from '@/lib/framework-internals.mjs';

// With tracing, next.config.ts resolves the SDK's import of Sentry's channel injection to this
// module. The injection makes instrumented packages (databases, pools, queues) emit the channels
// Sentry's spans come from: CommonJS ones by a patch of Node's loader, ES modules by a module hook
// that on Node 20 runs in a thread of its own. A production server loads only what its standalone
// folder holds: Next traced into its node_modules every package the server uses, and the server
// runs from that folder (scripts/start.mjs, the Dockerfile). Where nothing there is an ES module an
// instrumentation targets, the thread would cost memory and instrument nothing. Any doubt counts as
// needing the hook: a wrong yes costs memory, a wrong no would cost spans.

/** The part of an instrumentation that says which file of which package it rewrites. */
type InstrumentedFile = { module: { name: string; filePath: string | RegExp } };

/** The `type` of the package.json nearest to `dir`, looking no higher than `packageDir`. */
function packageTypeAt(dir: string, packageDir: string): unknown {
  const manifest = join(dir, 'package.json');
  if (existsSync(manifest)) {
    try {
      return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type;
    } catch {
      return undefined;
    }
  }
  return dir === packageDir || dirname(dir) === dir ? undefined : packageTypeAt(dirname(dir), packageDir);
}

/**
 * Whether Node can compile `source` as CommonJS, as its loader does first for a .js file without a
 * package type: where it cannot (a static import or export anywhere, `import.meta`, a top-level
 * `await`), Node 20.19 and later load the file as an ES module. Compiled only, never run.
 */
function compilesAsCommonJs(source: string): boolean {
  try {
    compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname']);
    return true;
  } catch {
    return false;
  }
}

/** Whether a target of an installed package can load as an ES module. A pattern might match one. */
function isEsModuleTarget(packageDir: string, filePath: string | RegExp): boolean {
  if (typeof filePath !== 'string') {
    return true;
  }
  const file = join(packageDir, filePath);
  if (!existsSync(file) || file.endsWith('.cjs')) {
    return false;
  }
  if (file.endsWith('.mjs')) {
    return true;
  }
  const type = packageTypeAt(dirname(file), packageDir);
  return type === 'module' || (type !== 'commonjs' && !compilesAsCommonJs(readFileSync(file, 'utf8')));
}

/** The packages in one node_modules folder, by name, scoped ones included. */
function packagesIn(nodeModules: string): { name: string; dir: string }[] {
  return readdirSync(nodeModules).flatMap((entry) => {
    const dir = join(nodeModules, entry);
    if (!entry.startsWith('@')) {
      return [{ name: entry, dir }];
    }
    return readdirSync(dir).map((scoped) => ({ name: `${entry}/${scoped}`, dir: join(dir, scoped) }));
  });
}

/**
 * Whether a package in `nodeModules`, or in one nested below it, holds an ES module that one of
 * `instrumentations` rewrites. What this cannot read in full (no such folder, pnpm's store, a
 * folder or file it may not read) counts as yes.
 */
export function holdsInstrumentedEsModule(nodeModules: string, instrumentations: readonly InstrumentedFile[]): boolean {
  const targets = new Map<string, (string | RegExp)[]>();
  for (const { module } of instrumentations) {
    targets.set(module.name, [...(targets.get(module.name) ?? []), module.filePath]);
  }
  try {
    if (!existsSync(nodeModules)) {
      return true;
    }
    // Each folder by its real path, once: linked packages can lead back to one already queued.
    const queued = new Set([realpathSync(nodeModules)]);
    const folders = [nodeModules];
    for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
      for (const { name, dir } of packagesIn(folder)) {
        if (name === '.pnpm' || targets.get(name)?.some((filePath) => isEsModuleTarget(dir, filePath))) {
          return true;
        }
        const nested = join(dir, 'node_modules');
        const real = existsSync(nested) ? realpathSync(nested) : undefined;
        if (real !== undefined && !queued.has(real)) {
          queued.add(real);
          folders.push(nested);
        }
      }
    }
    return false;
  } catch {
    return true;
  }
}

/** What the SDK's client calls on `init` when tracing is on (next.config.ts `resolveAlias`). */
export function registerDiagnosticsChannelInjection(): void {
  // `next dev` can load anything installed, in this folder or above it (a workspace's root).
  if (
    !isProduction ||
    holdsInstrumentedEsModule(join(process.cwd(), 'node_modules'), SENTRY_RUNTIME_INSTRUMENTATIONS)
  ) {
    registerWithModuleHook();
  } else {
    registerChannelInjectionForCommonJs(registerWithModuleHook, nodeModule, process.versions.node);
  }
}
