// @ts-check
// The .env files, read as `next start` and `next build` read them: the project's for the scripts
// that run before Next (`npm start` runs the standalone server from its own folder), and that
// folder's own (the .env and .env.production `next build` copies there) for server.mjs.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// Required, not imported, as server.mjs requires Next: the server loads this module at every start.
/** @type {typeof import('@next/env')} */
const nextEnv = createRequire(import.meta.url)('@next/env');

const projectDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Sets what the .env files of `dir` hold and the environment does not, as Next does.
 * @param {string} dir
 */
export function loadEnvFiles(dir) {
  // Next drops variables set blank while it loads the files; a blank one can mean something here
  // (NEXT_TELEMETRY_DISABLED set empty turns Next's telemetry back on, scripts/build.mjs).
  const blank = Object.keys(process.env).filter((name) => process.env[name] === '');
  nextEnv.loadEnvConfig(dir, false);
  for (const name of blank) process.env[name] ??= '';
}

/** The project's own .env files (.env.local and the rest). */
export function loadProjectEnv() {
  loadEnvFiles(projectDir);
}
