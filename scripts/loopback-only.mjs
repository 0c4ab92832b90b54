// Loaded into Spotlight's own process by scripts/dev.mjs (`node --import`), never into the app's.
// Spotlight's CLI reports its own usage and errors to Sentry's servers, through a DSN (a host name)
// built into it, with no switch to turn that off. In this process every host name but loopback's
// fails to resolve, so that report never leaves the machine. Not covered: a proxy on loopback
// (`https_proxy`), which would resolve the name itself.
import dns from 'node:dns';
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
for (const name of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname']) {
  dns[name] = (hostname, ...rest) => process.nextTick(rest.at(-1), refusal(hostname));
  dns.promises[name] = (hostname) => Promise.reject(refusal(hostname));
}
