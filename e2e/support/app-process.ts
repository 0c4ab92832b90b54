import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { appRunEnv } from './servers';

export type AppProcess = {
  url: string;
  /** Sends `signal` and resolves with the exit code once the process has ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  output(): string;
};

/**
 * `npm start` of the production build on APP_URL, on `port`, with its own spool, its output kept;
 * or `node server.mjs` in `standaloneDir`, a copy of that build; or `node <entry>` from here.
 */
function spawnApp(
  port: number,
  spoolName: string,
  env: Record<string, string>,
  standaloneDir?: string,
  entry?: string,
) {
  const child: ChildProcess = spawn('node', [entry ?? (standaloneDir ? 'server.mjs' : 'scripts/start.mjs')], {
    cwd: standaloneDir,
    env: { ...process.env, ...appRunEnv(spoolName), PORT: String(port), HOSTNAME: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/**
 * Another instance of the production build on APP_URL, on its own port, with its own spool. The
 * spool starts empty, so nothing an earlier run left there arrives at the sink, unless
 * `keepSpool` (a restart that must deliver what the last run kept). With `standaloneDir`, a copy
 * of the build there.
 */
export async function startApp(
  port: number,
  spoolName: string,
  env: Record<string, string> = {},
  { keepSpool = false, standaloneDir, entry }: { keepSpool?: boolean; standaloneDir?: string; entry?: string } = {},
): Promise<AppProcess> {
  if (!keepSpool) await removeSpool(spoolName);
  const { child, exited, output } = spawnApp(port, spoolName, env, standaloneDir, entry);
  const url = `http://127.0.0.1:${port}`;
  try {
    await expect
      .poll(async () => (await fetch(`${url}/about`).catch(() => undefined))?.status, {
        timeout: 30_000,
        message: `waiting for the app on port ${port}\n${output()}`,
      })
      .toBe(200);
  } catch (error) {
    // A server that never answered would otherwise outlive the test and hold its port.
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    throw error;
  }
  return {
    url,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) {
        child.kill(signal);
      }
      return exited;
    },
    output,
  };
}

export async function removeSpool(spoolName: string): Promise<void> {
  await rm(appRunEnv(spoolName).SENTRY_TUNNEL_SPOOL_DIR ?? '', { recursive: true, force: true });
}

/**
 * Starts the production build (or a copy of it, in `standaloneDir`) with `env` and waits for it to
 * exit by itself, or kills it after `killAfterMs`.
 */
export async function runAppUntilExit(
  port: number,
  env: Record<string, string>,
  standaloneDir?: string,
  killAfterMs = 30_000,
): Promise<{ code: number | null; output: string }> {
  const { child, exited, output } = spawnApp(port, 'exit', env, standaloneDir);
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const code = await exited;
  clearTimeout(timer);
  return { code, output: output() };
}

/**
 * `npm run build` (scripts/build.mjs) with `env` over the caller's environment (a variable given
 * as undefined is left out); its output kept.
 */
export function buildApp(env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn('node', ['scripts/build.mjs'], { env: { ...process.env, ...env } });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code) => done({ code, output }));
  });
}

/**
 * Runs `use` with a copy of the production build's standalone folder, removed afterwards. Its
 * links stay relative, so the copy runs its own packages, not the original's.
 */
export async function withCopyOfBuild<T>(name: string, use: (standaloneDir: string) => Promise<T>): Promise<T> {
  const copy = await mkdtemp(join(tmpdir(), `shell-e2e-${name}-`));
  try {
    await cp(join('.next', 'standalone'), copy, { recursive: true, verbatimSymlinks: true });
    return await use(copy);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}
