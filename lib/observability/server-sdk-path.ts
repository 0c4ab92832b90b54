import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { serverSdkEsmEntry } from '../framework-internals.mjs';

/**
 * Where the ES module build of @sentry/nextjs's server entry is, as Turbopack's `resolveAlias`
 * takes a file: relative to the project, with forward slashes (lib/framework-internals.mjs).
 */
export function serverSdkPath(projectDir: string): string {
  const packageJson = createRequire(join(projectDir, 'package.json')).resolve('@sentry/nextjs/package.json');
  const entry = serverSdkEsmEntry(JSON.parse(readFileSync(packageJson, 'utf8')));
  return `./${relative(projectDir, join(dirname(packageJson), entry)).replaceAll('\\', '/')}`;
}
