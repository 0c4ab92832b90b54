// @ts-check
// Node's host-name lookups (dns.lookup, which net, http and fetch call, and dns.promises.lookup),
// hooked for the --import preloads that watch where a process connects: scripts/loopback-only.mjs
// refuses every name but loopback's, and e2e/support/host-lookups.mjs records them.
import dns from 'node:dns';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * Calls `check` with every host name but loopback's before the process resolves it. An error that
 * `check` returns fails the lookup, as the resolver's own error would; `undefined` lets it go on.
 * @param {(hostname: string) => Error | undefined} check
 */
export function checkHostLookups(check) {
  /** @param {string} hostname */
  const refusalOf = (hostname) => (LOOPBACK_NAMES.has(hostname) ? undefined : check(hostname));
  // Typed loosely: each lookup's overloads (options or not, the callback second or third) are
  // handed on as they came.
  const hooked = /** @type {{ lookup: Function, promises: { lookup: Function } }} */ (dns);
  const { lookup } = dns;
  hooked.lookup = (/** @type {string} */ hostname, /** @type {unknown} */ options, /** @type {unknown} */ callback) => {
    const refusal = refusalOf(hostname);
    if (!refusal) return Reflect.apply(lookup, dns, [hostname, options, callback]);
    process.nextTick(/** @type {Function} */ (typeof options === 'function' ? options : callback), refusal);
  };
  const promiseLookup = dns.promises.lookup;
  hooked.promises.lookup = (/** @type {string} */ hostname, /** @type {unknown} */ options) => {
    const refusal = refusalOf(hostname);
    return refusal ? Promise.reject(refusal) : Reflect.apply(promiseLookup, dns.promises, [hostname, options]);
  };
}
