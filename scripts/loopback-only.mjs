// Loaded into Spotlight's own process by scripts/dev.mjs (`node --import`), never into the app's.
// Spotlight's CLI reports its own usage and errors to Sentry's servers, through a DSN (a host name)
// built into it, with no switch to turn that off. In this process every host name but loopback's
// fails to resolve, so that report never leaves the machine. Not covered: a proxy on loopback
// (`https_proxy`), which would resolve the name itself.
import dns from 'node:dns';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** @param {string} hostname */
function refusal(hostname) {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (npm run dev stays on loopback)`), {
    code: 'ENOTFOUND',
    hostname,
  });
}

const { lookup } = dns;
dns.lookup = (hostname, options, callback) => {
  if (LOOPBACK_NAMES.has(hostname)) return lookup(hostname, options, callback);
  const done = typeof options === 'function' ? options : callback;
  process.nextTick(done, refusal(hostname));
};

const promiseLookup = dns.promises.lookup;
dns.promises.lookup = (hostname, options) =>
  LOOPBACK_NAMES.has(hostname) ? promiseLookup(hostname, options) : Promise.reject(refusal(hostname));

// Direct DNS queries, as Spotlight's CORS check makes for a page's origin: none leaves either.
for (const name of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname']) {
  dns[name] = (hostname, ...rest) => process.nextTick(rest.at(-1), refusal(hostname));
  dns.promises[name] = (hostname) => Promise.reject(refusal(hostname));
}
