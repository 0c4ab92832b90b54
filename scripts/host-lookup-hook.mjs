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
  const { lookup } = dns;
  dns.lookup = (hostname, options, callback) => {
    const refusal = refusalOf(hostname);
    if (!refusal) return lookup(hostname, options, callback);
    process.nextTick(typeof options === 'function' ? options : callback, refusal);
  };
  const promiseLookup = dns.promises.lookup;
  dns.promises.lookup = (hostname, options) => {
    const refusal = refusalOf(hostname);
    return refusal ? Promise.reject(refusal) : promiseLookup(hostname, options);
  };
}
