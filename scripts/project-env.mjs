// The project's .env files (.env.local and the rest, as `next start` and `next build` read them)
// for the scripts that run before Next or outside the project folder: `npm start` runs the
// standalone server from its own folder, which holds only the .env and .env.production that
// `next build` copies there.

import { fileURLToPath } from 'node:url';
import nextEnv from '@next/env';

const projectDir = fileURLToPath(new URL('..', import.meta.url));

/** Sets what the project's .env files hold and the environment does not, as Next does. */
export function loadProjectEnv() {
  // Next drops variables set blank while it loads the files; a blank one can mean something here
  // (NEXT_TELEMETRY_DISABLED set empty turns Next's telemetry back on, scripts/build.mjs).
  const blank = Object.keys(process.env).filter((name) => process.env[name] === '');
  nextEnv.loadEnvConfig(projectDir, false);
  for (const name of blank) process.env[name] ??= '';
}
