// @ts-check
// `npm run build`: `next build` with `output: 'standalone'`, then the standalone folder made
// complete. Next leaves out the static files (meant for a CDN) and knows nothing of server.mjs and
// the modules it imports (plain JavaScript, copied as they are). The source maps stay in the build
// folder for an upload and never reach the standalone folder, the runtime image.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadProjectEnv } from './project-env.mjs';

// Next's CLI as its package.json names it.
const nextPackage = createRequire(import.meta.url).resolve('next/package.json');
const nextBin = join(dirname(nextPackage), JSON.parse(readFileSync(nextPackage, 'utf8')).bin.next);
// With a token, Sentry's plugin uploads through the Sentry CLI's code, which would also report its
// own usage to sentry.io and ask GitHub for a newer version; `telemetry: false` covers neither.
// Next reports each build to telemetry.nextjs.org unless told not to, as `npm run dev` tells it;
// NEXT_TELEMETRY_DISABLED set empty turns it back on (Next reads any other value as "off").
const quiet = { SENTRY_CLI_NO_TELEMETRY: '1', SENTRY_CLI_NO_UPDATE_CHECK: '1', NEXT_TELEMETRY_DISABLED: '1' };
loadProjectEnv();
// After the .env files: they may name the build folder, which Next and this script must agree on.
const { distDir, standaloneDir } = await import('./standalone.mjs');
const build = spawnSync(process.execPath, [nextBin, 'build', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...quiet, ...process.env },
});
if (build.status !== 0) process.exit(build.status ?? 1);

/**
 * Paths of the files below `folder`. Symbolic links are not followed: Next links packages it
 * keeps external from the build folder into the project's own node_modules.
 * @param {string} folder
 * @returns {string[]}
 */
function filesBelow(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return filesBelow(path);
    return entry.isFile() ? [path] : [];
  });
}

/** @param {string} file */
const isSourceMap = (file) => file.endsWith('.map');
const shippedStatic = join(standaloneDir, distDir, 'static');
cpSync(join(distDir, 'static'), shippedStatic, { recursive: true, filter: (file) => !isSourceMap(file) });
// Next's copy of the server files brings their maps along, and its copy of the server's
// node_modules the packages' own; nothing at run time reads them.
for (const path of filesBelow(standaloneDir)) {
  if (isSourceMap(path)) rmSync(path);
}
// A browser's developer tools would ask for the maps the comments name, and get 404s; Sentry's
// upload strips the comments the same way. The debug IDs stay: they are how Sentry finds a map.
for (const path of filesBelow(shippedStatic)) {
  if (!/\.(js|css)$/.test(path)) continue;
  const text = readFileSync(path, 'utf8');
  const stripped = text.replace(/\n\/[/*][#@] sourceMappingURL=[^\n]*\n?$/, '');
  if (stripped !== text) writeFileSync(path, stripped);
}
if (existsSync('public')) cpSync('public', join(standaloneDir, 'public'), { recursive: true });
/**
 * `entry` and the modules it imports by relative path, and theirs.
 * @param {string} entry
 * @param {Set<string>} [found]
 * @returns {Set<string>}
 */
function withRelativeImports(entry, found = new Set()) {
  if (found.has(entry)) return found;
  found.add(entry);
  for (const [, specifier] of readFileSync(entry, 'utf8').matchAll(/^import [^'"]*['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    // The pattern's one group always takes part in a match.
    withRelativeImports(join(dirname(entry), /** @type {string} */ (specifier)), found);
  }
  return found;
}

for (const file of withRelativeImports('server.mjs')) {
  mkdirSync(dirname(join(standaloneDir, file)), { recursive: true });
  cpSync(file, join(standaloneDir, file));
}

// Next's own server.js would serve this build without server.mjs: no CSP on pages, no tunnel, no
// shutdown that loses nothing. Whoever starts the folder as Next's docs say gets the app's server.
// Like Next's, it works from its own folder wherever it is started from (`node .next/standalone/server.js`).
writeFileSync(
  join(standaloneDir, 'server.js'),
  [
    "// Written by scripts/build.mjs: the app's server is server.mjs, whichever file is started.",
    "import { fileURLToPath } from 'node:url';",
    "process.chdir(fileURLToPath(new URL('.', import.meta.url)));",
    "await import('./server.mjs');",
    '',
  ].join('\n'),
);
