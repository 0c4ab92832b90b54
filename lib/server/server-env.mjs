// @ts-check
// What server.mjs and the build scripts read of the environment, before the app's own module
// (lib/env.ts) can load: where to listen, the drain delay, the build's folder. Plain JavaScript:
// they run before anything is compiled. The same rules as lib/env.ts: blank is unset, text is
// trimmed, a bad value is named.

/** A build folder's name, as lib/env.ts accepts it too. */
export const DIST_DIR_PATTERN = /^\.next[A-Za-z0-9._-]*$/;

/**
 * @param {Record<string, string | undefined>} source
 * @param {string} name
 */
export const textOf = (source, name) => source[name]?.trim() || undefined;

/**
 * The build's folder, unchecked: `next build` checks it (lib/env.ts), `npm start` through readServerEnv.
 * @param {Record<string, string | undefined>} source
 */
export function distDirOf(source) {
  return textOf(source, 'NEXT_DIST_DIR') ?? '.next';
}

/**
 * A whole number from 0 to `max` written in digits, or undefined.
 * @param {string} text
 * @param {number} max
 */
export function wholeNumberUpTo(text, max) {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return value <= max ? value : undefined;
}

/**
 * What server.mjs needs to start. Throws an Error named EnvError, a line for each bad variable.
 * @param {Record<string, string | undefined>} source
 * @returns {{ port: number, hostname: string, drainDelayMs: number, distDir: string }}
 */
export function readServerEnv(source) {
  const problems = [];
  const port = wholeNumberUpTo(textOf(source, 'PORT') ?? '3000', 65_535);
  if (port === undefined) problems.push('PORT: must be a whole number from 0 to 65535');
  const drainDelayMs = wholeNumberUpTo(textOf(source, 'SHUTDOWN_DRAIN_DELAY_MS') ?? '0', 60_000);
  if (drainDelayMs === undefined) {
    problems.push('SHUTDOWN_DRAIN_DELAY_MS: must be a whole number of milliseconds from 0 to 60000');
  }
  const distDir = distDirOf(source);
  if (!DIST_DIR_PATTERN.test(distDir)) problems.push('NEXT_DIST_DIR: must be a folder name starting with ".next"');
  // Both checks, for the types: each undefined has its problem listed.
  if (port === undefined || drainDelayMs === undefined || problems.length > 0) {
    const lines = problems.map((problem) => `  ${problem}`).join('\n');
    throw Object.assign(new Error(`Invalid environment variables:\n${lines}`), { name: 'EnvError' });
  }
  return { port, hostname: textOf(source, 'HOSTNAME') ?? '0.0.0.0', drainDelayMs, distDir };
}
