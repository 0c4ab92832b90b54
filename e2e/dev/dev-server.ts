import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { expect } from '@playwright/test';

// Beside the browser tests' ports (3100-3199) and a developer's own `npm run dev` (3000, 8969).
export const DEV_PORT = 3300;
export const DEV_URL = `http://localhost:${DEV_PORT}`;
export const SPOTLIGHT_PORT = 8970;
export const SPOTLIGHT_URL = `http://localhost:${SPOTLIGHT_PORT}`;
// Its own build output folder, which nothing else in `npm test` writes: removed before each
// start, so the dev server always starts as on a fresh clone.
const DIST_DIR = '.next-dev';

export type DevServer = {
  /** Everything the dev server and Spotlight printed so far. */
  output(): string;
  /** Stops `npm run dev` and everything it started. */
  stop(): Promise<void>;
  /** Sends SIGTERM to the npm process alone, as a process manager stops what it started. */
  terminateNpm(): void;
  /** Whether any process `npm run dev` started is still running. */
  isRunning(): boolean;
};

async function isAnswering(url: string): Promise<boolean> {
  return fetch(url).then(
    () => true,
    () => false,
  );
}

/** Another `npm run dev` beside the one on DEV_PORT: its ports, its build folder and its settings. */
export type DevServerOptions = { port: number; spotlightPort: number; distDir: string; env: Record<string, string> };

/**
 * `npm run dev` as the README starts it (Spotlight's `spotlight run` wrapping `next dev`, Turbopack),
 * on a tree with no build output, with only the ports moved (and what `options` set). Resolves once
 * `/about` answers 200.
 */
export async function startDevServer({
  port = DEV_PORT,
  spotlightPort = SPOTLIGHT_PORT,
  distDir = DIST_DIR,
  env = {},
}: Partial<DevServerOptions> = {}): Promise<DevServer> {
  const devUrl = `http://localhost:${port}`;
  for (const url of [devUrl, `http://localhost:${spotlightPort}`]) {
    // `next dev` would move to the next free port and the test would read someone else's server.
    expect(await isAnswering(url), `${url} is already taken: stop what runs there`).toBe(false);
  }
  await rm(distDir, { recursive: true, force: true });
  const child: ChildProcess = spawn('npm', ['run', 'dev', '--', '--port', String(port)], {
    env: { ...process.env, ...env, NEXT_DIST_DIR: distDir, SPOTLIGHT_PORT: String(spotlightPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npm, Spotlight, next dev and its workers stop together.
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const signalGroup = (signal: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(-(child.pid ?? 0), signal);
      return true;
    } catch {
      return false; // every process of the group has ended
    }
  };
  // Until every process of the group has ended, not only npm: next dev's would hold the port.
  const stop = async () => {
    if (child.pid === undefined || !signalGroup('SIGTERM')) return;
    const timer = setTimeout(() => signalGroup('SIGKILL'), 10_000);
    await expect
      .poll(() => signalGroup(0), { timeout: 15_000, message: 'waiting for npm run dev to stop' })
      .toBe(false);
    clearTimeout(timer);
  };

  const deadline = Date.now() + 120_000;
  let status: number | undefined;
  while (status !== 200) {
    // An early exit (the crash a fresh clone once met) fails at once, with what it printed.
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(
        `npm run dev did not serve ${devUrl}/about (${child.exitCode === null ? 'timed out' : `exited ${child.exitCode}`}):\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = (await fetch(`${devUrl}/about`).catch(() => undefined))?.status;
  }
  return {
    output: () => output,
    stop,
    terminateNpm: () => child.kill('SIGTERM'),
    isRunning: () => signalGroup(0),
  };
}
