// @ts-check
// Loaded into Spotlight's own process by scripts/dev.mjs (`node --import`), never into the app's.
// Spotlight's CLI reports its own usage and errors to Sentry's servers, through a DSN (a host name)
// built into it, with no switch to turn that off. In this process every host name but loopback's
// fails to resolve, so that report never leaves the machine. Not covered: a proxy on loopback
// (`https_proxy`), which would resolve the name itself.
// Its sidecar listens on every interface, with no switch either, and its source lookup
// (`PUT /contextlines`) sends any file of this machine to whoever asks: here it listens on
// 127.0.0.1 alone. The browser and the app's SDK reach it as `localhost`, which resolves there (or
// to ::1 first, from which both go on to 127.0.0.1).
import dns from 'node:dns';
import net from 'node:net';
import { checkHostLookups } from './host-lookup-hook.mjs';

/** @param {string} hostname */
function refusal(hostname) {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (npm run dev stays on loopback)`), {
    code: 'ENOTFOUND',
    hostname,
  });
}

checkHostLookups(refusal);

// Direct DNS queries, as Spotlight's CORS check makes for a page's origin: none leaves either.
const resolvers = /** @type {Record<string, Function>} */ (/** @type {unknown} */ (dns));
const promiseResolvers = /** @type {Record<string, Function>} */ (/** @type {unknown} */ (dns.promises));
for (const name of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname']) {
  resolvers[name] = (/** @type {string} */ hostname, /** @type {unknown[]} */ ...rest) =>
    process.nextTick(/** @type {Function} */ (rest.at(-1)), refusal(hostname));
  promiseResolvers[name] = (/** @type {string} */ hostname) => Promise.reject(refusal(hostname));
}

/**
 * Whether `host` means every interface: empty, 0.0.0.0 (or `0`), or IPv6's unspecified address.
 * @param {string} host
 */
function isEveryInterface(host) {
  return host === '' || host === '0' || host === '0.0.0.0' || (net.isIPv6(host) && /^[0:]+$/.test(host));
}

/**
 * A `listen` call's arguments with 127.0.0.1 as the host wherever they name none or every
 * interface: `listen(port)`, `listen(port, callback)`, `listen(port, undefined or null, ...)`,
 * `listen(port, backlog, ...)`, `listen({ port })`, `listen(callback)`, `listen()`. A path (IPC) or
 * a handle stays as it is. A port may be text, read as Node reads it.
 * @param {unknown[]} args
 * @returns {unknown[]}
 */
function onLoopback(args) {
  const [first, second, ...rest] = args;
  if (typeof first === 'function') return [0, '127.0.0.1', ...args];
  if (typeof first === 'object' && first !== null) {
    if (!('port' in first) || 'path' in first) return args;
    const host = 'host' in first ? first.host : undefined;
    return host === undefined || host === null || isEveryInterface(String(host))
      ? [{ ...first, host: '127.0.0.1' }, ...args.slice(1)]
      : args;
  }
  const isPort = first === undefined || typeof first === 'number' || (typeof first === 'string' && Number(first) >= 0);
  if (!isPort) return args;
  if (typeof second === 'string') return isEveryInterface(second) ? [first, '127.0.0.1', ...rest] : args;
  if (second === undefined || second === null) return [first ?? 0, '127.0.0.1', ...rest];
  return [first ?? 0, '127.0.0.1', second, ...rest];
}

const listen = net.Server.prototype.listen;
/** @type {typeof listen} */
net.Server.prototype.listen = function listenOnLoopback(...args) {
  return listen.apply(this, /** @type {Parameters<typeof listen>} */ (onLoopback(args)));
};
