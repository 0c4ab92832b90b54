// The baseline's build, as Next's docs describe a standalone deployment: `next build`, then the
// static files copied beside the standalone server, which leaves them out (meant for a CDN).
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectDir = dirname(fileURLToPath(import.meta.url));
const build = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build', projectDir], {
  stdio: 'inherit',
  // As the app's build: no report to telemetry.nextjs.org unless NEXT_TELEMETRY_DISABLED is set empty.
  env: { NEXT_TELEMETRY_DISABLED: '1', ...process.env },
});
if (build.status !== 0) process.exit(build.status ?? 1);

// Next mirrors the project's place under the tracing root (the repository) inside standalone/.
const serverDir = join(projectDir, '.next/standalone', relative(resolve('.'), projectDir));
cpSync(join(projectDir, '.next/static'), join(serverDir, '.next/static'), { recursive: true });
