import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { readEsmEntry } from '../framework-internals.mjs';

/**
 * Where the ES module build of a Sentry package's main entry is, as Turbopack's `resolveAlias`
 * takes a file: relative to the project, with forward slashes (lib/framework-internals.mjs).
 */
export function locateEsmEntry(projectDir: string, packageName: string): string {
  const packageJson = createRequire(join(projectDir, 'package.json')).resolve(`${packageName}/package.json`);
  const entry = readEsmEntry(JSON.parse(readFileSync(packageJson, 'utf8')), packageName);
  return `./${relative(projectDir, join(dirname(packageJson), entry)).replaceAll('\\', '/')}`;
}
