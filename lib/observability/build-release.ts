import { execFileSync } from 'node:child_process';

/** The release named at build: SENTRY_RELEASE, else the git commit being built, when there is one. */
export function resolveBuildRelease(explicit: string | undefined): string | undefined {
  if (explicit !== undefined) {
    return explicit;
  }
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    // Not a git checkout (a container build from a tarball): the release stays unnamed.
    return undefined;
  }
}
