// @ts-check
// `npm run dev`: Next's dev server inside Spotlight, Sentry's local UI at http://localhost:8969.
// `spotlight run` starts its sidecar and passes its URL to the app as SENTRY_SPOTLIGHT and
// NEXT_PUBLIC_SENTRY_SPOTLIGHT, so every captured error shows up there with no DSN or account.
// Arguments go to `next dev` (`npm run dev -- --port 3001`); SPOTLIGHT_PORT moves the sidecar.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { textOf, wholeNumberUpTo } from '../lib/server/server-env.mjs';
import { ancestorsNow, whenOrphaned } from './when-orphaned.mjs';

// Read before anything waits: npm may be gone by the time the child is started.
const ancestors = ancestorsNow();

/**
 * The port the variable `name` names (else `fallback`), read by server.mjs's rules
 * (lib/server/server-env.mjs): blank is unset, text is trimmed. Any other value ends the command.
 * @param {string} name
 * @param {string} fallback
 * @returns {number}
 */
function portFromEnv(name, fallback) {
  const port = wholeNumberUpTo(textOf(process.env, name) ?? fallback, 65_535);
  if (port === undefined || port === 0) {
    console.error(`${name}: must be a whole number from 1 to 65535`);
    process.exit(1);
  }
  return port;
}

const spotlightPort = portFromEnv('SPOTLIGHT_PORT', '8969');
/**
 * The last value given for one of next dev's options, in any of the forms its CLI takes (`-p 3001`,
 * `-p3001`, `--port 3001`, `--port=3001`).
 * @param {string[]} args
 * @param {string} short
 * @param {string} long
 * @returns {string | undefined}
 */
function optionValue(args, short, long) {
  let value;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === short || arg === long) {
      // Named without a value (the last argument): next dev's to refuse.
      value = args[index + 1] ?? '';
      index += 1;
    } else if (arg.startsWith(`${long}=`)) value = arg.slice(long.length + 1);
    else if (arg.startsWith(short) && !arg.startsWith('--')) value = arg.slice(short.length);
  }
  return value;
}

// `next dev` moves to the next free port when its default one is taken, and http://localhost:3000
// would then be someone else's server: the port is always named, so a taken one ends the command.
const nextArgs = process.argv.slice(2);
const portArg = optionValue(nextArgs, '-p', '--port');
const namesPort = portArg !== undefined;
/** The app's port, unless the developer named one next dev will refuse in its own words. */
let appPort;
if (namesPort) {
  appPort = wholeNumberUpTo(portArg.trim(), 65_535) || undefined;
} else {
  appPort = portFromEnv('PORT', '3000');
  nextArgs.push('--port', String(appPort));
}
const movePort = namesPort ? 'name another port with --port' : 'set PORT to another port';
if (appPort === spotlightPort) {
  console.error(`The app and Spotlight cannot both listen on port ${appPort}: ${movePort}, or set SPOTLIGHT_PORT.`);
  process.exit(1);
}

// Errors that name the host as the fault, where another port would not help.
const HOST_ERRORS = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The error listening on `port` at `host` fails with now (its code), or undefined when it could
 * listen there.
 * @param {number} port
 * @param {string | undefined} host
 * @returns {Promise<string | undefined>}
 */
async function listenError(port, host) {
  const probe = createServer();
  try {
    await new Promise((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(port, host, () => resolve(undefined));
    });
  } catch (error) {
    const { code, message } = /** @type {NodeJS.ErrnoException} */ (error);
    return code ?? message;
  }
  await new Promise((resolve) => probe.close(resolve));
  return undefined;
}

/**
 * Ends the command, saying what to do, when this process cannot listen on `port` at `host` (or
 * where a server given no host listens: every address).
 * @param {number} port
 * @param {string | undefined} host
 * @param {string} what
 * @param {string} remedy
 */
async function exitIfTaken(port, host, what, remedy) {
  const code = await listenError(port, host);
  if (code === undefined) return;
  if (host !== undefined && HOST_ERRORS.has(code)) {
    console.error(
      `${what} cannot listen on ${host} (${code}): it names no address of this machine; name another with -H.`,
    );
    process.exit(1);
  }
  // Only a port in use has something to stop: one below 1024 (EACCES) has not.
  const advice = code === 'EADDRINUSE' ? `stop what uses it, or ${remedy}` : remedy;
  console.error(`${what} cannot listen on port ${port} (${code}): ${advice}.`);
  process.exit(1);
}

// On a port something else holds, Spotlight retries on a timer that keeps nothing alive, so the
// whole command would end with exit code 0 and no app: checked first, on the address it listens on
// (scripts/loopback-only.mjs).
await exitIfTaken(spotlightPort, '127.0.0.1', 'Spotlight', 'set SPOTLIGHT_PORT to another port');
// The browser and the app's SDK reach Spotlight as `localhost`, which may resolve to ::1 first: a
// server there would take the envelopes meant for Spotlight. (A machine without ::1 has none.)
if ((await listenError(spotlightPort, '::1')) === 'EADDRINUSE') {
  console.error(
    `Something holds port ${spotlightPort} at ::1, where the browser may reach it as localhost instead of Spotlight: stop what uses it, or set SPOTLIGHT_PORT to another port.`,
  );
  process.exit(1);
}
// The app's too, on the address next dev will take: a sentence rather than the stack next dev
// prints after Spotlight has started.
if (appPort !== undefined) {
  const remedy = namesPort ? movePort : `${movePort} (or run npm run dev -- --port <port>)`;
  await exitIfTaken(appPort, optionValue(nextArgs, '-H', '--hostname'), 'The app', remedy);
}
const binaries = resolve('node_modules', '.bin');
// Spotlight's CLI as its package.json names it (node_modules/.bin holds a shell shim on Windows).
const spotlightPackage = resolve('node_modules', '@spotlightjs', 'spotlight', 'package.json');
const spotlightCli = join(dirname(spotlightPackage), JSON.parse(readFileSync(spotlightPackage, 'utf8')).bin.spotlight);
const child = spawn(
  process.execPath,
  [
    // Spotlight's process only: its own telemetry would otherwise go to Sentry's servers.
    '--import',
    new URL('./loopback-only.mjs', import.meta.url).href,
    '--import',
    new URL('./stop-with-parent.mjs', import.meta.url).href,
    spotlightCli,
    'run',
    '--port',
    String(spotlightPort),
    'next',
    'dev',
    ...nextArgs,
  ],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      PATH: `${binaries}${delimiter}${process.env.PATH}`,
      NEXT_TELEMETRY_DISABLED: process.env.NEXT_TELEMETRY_DISABLED ?? '1',
    },
  },
);
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => child.kill(signal));
}
// Once npm is gone, everything this started stops too, rather than keep the ports.
whenOrphaned(() => child.kill('SIGTERM'), ancestors);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
