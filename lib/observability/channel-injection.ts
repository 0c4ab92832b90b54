import 'server-only';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { registerDiagnosticsChannelInjection as registerWithModuleHook } from '@sentry/server-runtime-injection';
import { SENTRY_RUNTIME_INSTRUMENTATIONS } from '@sentry/server-utils/orchestrion/config';
import { registerChannelInjectionForCommonJs } from '@/lib/framework-internals.mjs';

// With tracing, next.config.ts resolves the SDK's import of Sentry's channel injection to this
// module. The injection makes instrumented packages (databases, pools, queues) emit the channels
// Sentry's spans come from: CommonJS ones by a patch of Node's loader, ES modules by a module hook
// that on Node 20 runs in a thread of its own. A deployment loads only what is in its node_modules
// (the standalone output holds just what Next traced the server to use), so where nothing there is
// an ES module an instrumentation targets, the thread would cost memory and instrument nothing.

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

/** Whether a target of an installed package can be an ES module. A pattern might match one. */
function isEsModuleTarget(packageDir: string, filePath: string | RegExp): boolean {
  if (typeof filePath !== 'string') {
    return true;
  }
  const file = join(packageDir, filePath);
  if (!existsSync(file) || file.endsWith('.cjs')) {
    return false;
  }
  return file.endsWith('.mjs') || packageTypeAt(dirname(file), packageDir) === 'module';
}

/** The packages in one node_modules folder, by name, scoped ones included; undefined if unreadable. */
function packagesIn(nodeModules: string): { name: string; dir: string }[] | undefined {
  try {
    return readdirSync(nodeModules).flatMap((entry) => {
      const dir = join(nodeModules, entry);
      if (!entry.startsWith('@')) {
        return [{ name: entry, dir }];
      }
      return readdirSync(dir).map((scoped) => ({ name: `${entry}/${scoped}`, dir: join(dir, scoped) }));
    });
  } catch {
    return undefined;
  }
}

/**
 * Whether a package in `nodeModules`, or in one nested below it, holds an ES module that one of
 * `instrumentations` rewrites. What this cannot read in full (pnpm's store, a folder it may not
 * list) counts as yes: the hook then costs memory, where a wrong no would cost spans.
 */
export function holdsInstrumentedEsModule(nodeModules: string, instrumentations: readonly InstrumentedFile[]): boolean {
  const targets = new Map<string, (string | RegExp)[]>();
  for (const { module } of instrumentations) {
    targets.set(module.name, [...(targets.get(module.name) ?? []), module.filePath]);
  }
  const folders = existsSync(nodeModules) ? [nodeModules] : [];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const packages = packagesIn(folder);
    if (packages === undefined) {
      return true;
    }
    for (const { name, dir } of packages) {
      if (name === '.pnpm' || targets.get(name)?.some((filePath) => isEsModuleTarget(dir, filePath))) {
        return true;
      }
      if (existsSync(join(dir, 'node_modules'))) {
        folders.push(join(dir, 'node_modules'));
      }
    }
  }
  return false;
}

/** What the SDK's client calls on `init` when tracing is on (next.config.ts `resolveAlias`). */
export function registerDiagnosticsChannelInjection(): void {
  // The server's working folder is the deployment: the standalone folder (`npm start`, the
  // container) or the repository under `next dev`.
  if (holdsInstrumentedEsModule(join(process.cwd(), 'node_modules'), SENTRY_RUNTIME_INSTRUMENTATIONS)) {
    registerWithModuleHook();
  } else {
    registerChannelInjectionForCommonJs(registerWithModuleHook, nodeModule);
  }
}
