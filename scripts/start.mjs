// `npm start`: the standalone server `npm run build` made, run from its own folder, with only the
// node_modules Next traced into it, as the container runs it.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadProjectEnv } from './project-env.mjs';
import { whenOrphaned } from './when-orphaned.mjs';

loadProjectEnv();
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
if (process.env.npm_lifecycle_event === 'start') {
  whenOrphaned(() => process.kill(process.pid, 'SIGTERM'));
}
