// Build time only (next.config.ts): Node's file system, which the browser's copy of
// tunnel-path.ts must not import.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The folders whose subfolders Next serves at the top of the URL: `app/` itself, and the route
 * groups (`(name)`) and parallel-route slots (`@name`) in it, nested in any order; neither adds a
 * segment to the URL.
 */
function topLevelRouteFolders(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const transparent = readdirSync(folder, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && /^(?:\(.+\)|@.+)$/.test(entry.name),
  );
  return [folder, ...transparent.flatMap((entry) => topLevelRouteFolders(join(folder, entry.name)))];
}

/**
 * At build time (next.config.ts): server.mjs answers every request to the tunnel's path before
 * Next routes it, so a route or public file of the same name would become unreachable. Throws,
 * naming the variable, when the project has one.
 */
export function assertTunnelPathIsFree(tunnelPath: string, projectDir: string): void {
  const name = tunnelPath.slice(1);
  const folders = [...topLevelRouteFolders(join(projectDir, 'app')), join(projectDir, 'public')];
  const taken = folders.map((folder) => join(folder, name)).find((path) => existsSync(path));
  if (taken !== undefined) {
    const route = relative(projectDir, taken).replaceAll('\\', '/');
    throw new Error(`SENTRY_TUNNEL_PATH: ${tunnelPath} is taken by ${route}; choose a path nothing else uses`);
  }
}
