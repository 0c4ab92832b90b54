// @ts-check
// `npm start`: the standalone server `npm run build` made, run from its own folder, with only the
// node_modules Next traced into it, as the container runs it.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadProjectEnv } from './project-env.mjs';
import { ancestorsNow, whenOrphaned } from './when-orphaned.mjs';

// `npm start` reads the project's .env files, as `next start` does. The tests and the bench run
// this script directly, with every variable they mean, and a developer's .env.local stays out.
const isNpmStart = process.env.npm_lifecycle_event === 'start';
const ancestors = ancestorsNow();
if (isNpmStart) loadProjectEnv();
// After the .env files: they may name the build folder.
const { standaloneDir } = await import('./standalone.mjs');
const server = resolve(standaloneDir, 'server.mjs');
if (!existsSync(server)) {
  console.error(`No standalone build in ${standaloneDir}: run \`npm run build\` first.`);
  process.exit(1);
}
process.chdir(standaloneDir);
await import(pathToFileURL(server).href);
// Under npm, a SIGTERM to npm alone stops the server as one to it would: drained, reports flushed.
// The ancestors are the ones read at start-up: npm may be gone before the server is ready.
if (isNpmStart) whenOrphaned(() => process.kill(process.pid, 'SIGTERM'), ancestors);
