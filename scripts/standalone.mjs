// Where the standalone server lives: `npm run build` completes it, `npm start` and the container
// run it. NEXT_DIST_DIR is validated by lib/env.ts when next.config.ts loads in the build.
import { join } from 'node:path';

export const distDir = process.env.NEXT_DIST_DIR || '.next';
export const standaloneDir = join(distDir, 'standalone');
