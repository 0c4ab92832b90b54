// Loaded into every Node process of a build by a test (`NODE_OPTIONS=--import`): writes to the file
// HOST_LOOKUP_LOG that it was loaded, and each host name other than loopback's that the process
// resolves. Lookups still happen: the test sees what the build would do, and asserts on it.

import dns from 'node:dns';
import { appendFileSync } from 'node:fs';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
const logFile = process.env.HOST_LOOKUP_LOG;

if (logFile) {
  appendFileSync(logFile, `loaded ${process.pid}\n`);
  /** @param {unknown} hostname */
  const record = (hostname) => {
    if (!LOOPBACK_NAMES.has(String(hostname))) appendFileSync(logFile, `lookup ${hostname}\n`);
  };
  const { lookup } = dns;
  dns.lookup = (hostname, ...rest) => {
    record(hostname);
    return lookup(hostname, ...rest);
  };
  const promiseLookup = dns.promises.lookup;
  dns.promises.lookup = (hostname, ...rest) => {
    record(hostname);
    return promiseLookup(hostname, ...rest);
  };
}
