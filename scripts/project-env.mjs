// The project's .env files (.env.local and the rest, as `next start` and `next build` read them)
// for the scripts that run before Next or outside the project folder: `npm start` runs the
// standalone server from its own folder, where Next looks for none.
import nextEnv from '@next/env';
import { fileURLToPath } from 'node:url';

const projectDir = fileURLToPath(new URL('..', import.meta.url));

/** Sets what the project's .env files hold and the environment does not, as Next does. */
export function loadProjectEnv() {
  nextEnv.loadEnvConfig(projectDir, false);
}
