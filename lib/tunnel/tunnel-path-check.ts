// Build time only (next.config.ts): Node's file system, which the browser's copy of
// tunnel-path.ts must not import.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * At build time (next.config.ts): server.mjs answers every request to the tunnel's path before
 * Next routes it, so a route or public file of the same name would become unreachable. Throws,
 * naming the variable, when the project has one.
 */
export function assertTunnelPathIsFree(tunnelPath: string, projectDir: string): void {
  const name = tunnelPath.slice(1);
  for (const folder of ['app', 'public']) {
    if (existsSync(join(projectDir, folder, name))) {
      throw new Error(
        `SENTRY_TUNNEL_PATH: ${tunnelPath} is taken by ${folder}/${name}; choose a path nothing else uses`,
      );
    }
  }
}
