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
};

async function isAnswering(url: string): Promise<boolean> {
  return fetch(url).then(
    () => true,
    () => false,
  );
}

/**
 * `npm run dev` as the README starts it (Spotlight's `spotlight run` wrapping `next dev`, Turbopack),
 * on a tree with no build output, with only the ports moved. Resolves once `/about` answers 200.
 */
export async function startDevServer(): Promise<DevServer> {
  for (const url of [DEV_URL, SPOTLIGHT_URL]) {
    // `next dev` would move to the next free port and the test would read someone else's server.
    expect(await isAnswering(url), `${url} is already taken: stop what runs there`).toBe(false);
  }
  await rm(DIST_DIR, { recursive: true, force: true });
  const child: ChildProcess = spawn('npm', ['run', 'dev', '--', '--port', String(DEV_PORT)], {
    env: { ...process.env, NEXT_DIST_DIR: DIST_DIR, SPOTLIGHT_PORT: String(SPOTLIGHT_PORT) },
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
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const signalGroup = (signal: NodeJS.Signals): boolean => {
    try {
      process.kill(-(child.pid ?? 0), signal);
      return true;
    } catch {
      return false; // the whole group has ended
    }
  };
  const stop = async () => {
    if (child.pid === undefined || !signalGroup('SIGTERM')) return;
    const timer = setTimeout(() => signalGroup('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await expect
      .poll(
        async () =>
          child.exitCode === null ? (await fetch(`${DEV_URL}/about`).catch(() => undefined))?.status : 'exited',
        {
          timeout: 120_000,
          intervals: [250],
          message: 'waiting for `npm run dev`',
        },
      )
      .toBe(200);
  } catch (error) {
    await stop();
    throw new Error(`npm run dev did not serve ${DEV_URL}/about:\n${output}`, { cause: error });
  }
  return { output: () => output, stop };
}
