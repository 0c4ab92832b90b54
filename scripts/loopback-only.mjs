// Loaded into Spotlight's own process by scripts/dev.mjs (`node --import`), never into the app's.
// Spotlight's CLI reports its own usage and errors to Sentry's servers, through a DSN built into it
// with no switch to turn that off. `npm run dev` stays on this machine: every host name but
// loopback's fails to resolve, before any lookup leaves the process.
import dns from 'node:dns';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
const { lookup } = dns;

dns.lookup = (hostname, options, callback) => {
  if (LOOPBACK_NAMES.has(hostname)) return lookup(hostname, options, callback);
  const done = typeof options === 'function' ? options : callback;
  const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (npm run dev stays on loopback)`), {
    code: 'ENOTFOUND',
    hostname,
  });
  process.nextTick(done, error);
};
