// `npm run build`: `next build` with `output: 'standalone'`, then the standalone folder made
// complete. Next leaves out the static files (meant for a CDN) and knows nothing of server.mjs.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { distDir, standaloneDir } from './standalone.mjs';

const nextBin = createRequire(import.meta.url).resolve('next/dist/bin/next');
const build = spawnSync(process.execPath, [nextBin, 'build', ...process.argv.slice(2)], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

cpSync(join(distDir, 'static'), join(standaloneDir, distDir, 'static'), { recursive: true });
if (existsSync('public')) cpSync('public', join(standaloneDir, 'public'), { recursive: true });
cpSync('server.mjs', join(standaloneDir, 'server.mjs'));
