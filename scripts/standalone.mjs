// @ts-check
// Where the standalone server lives: `npm run build` completes it, `npm start` and the container
// run it. NEXT_DIST_DIR is validated by lib/env.ts when next.config.ts loads in the build.
import { join } from 'node:path';
import { distDirOf } from '../lib/server/server-env.mjs';

export const distDir = distDirOf(process.env);
export const standaloneDir = join(distDir, 'standalone');
