// @ts-check
// Starting and stopping the servers a benchmark measures: each on loopback, each ended by its PID.
import { spawn } from 'node:child_process';

/** @type {Set<import('node:child_process').ChildProcess>} */
const started = new Set();

/**
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 */
export function startProcess(command, args, env = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  started.add(child);
  child.on('exit', () => started.delete(child));
  return { child, output: () => output };
}

/** @param {string} url */
export async function waitForUrl(url, timeoutMs = 60_000, pollMs = 200) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await fetch(url).catch(() => undefined);
    await response?.arrayBuffer();
    if (response?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export function stopAll() {
  for (const child of started) child.kill('SIGKILL');
}

process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(130));
}
