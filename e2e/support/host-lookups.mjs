// Loaded into every Node process of a build by a test (`NODE_OPTIONS=--import`): writes to the file
// HOST_LOOKUP_LOG that it was loaded, and each host name other than loopback's that the process
// resolves. Lookups still happen: the test sees what the build would do, and asserts on it.
import { appendFileSync } from 'node:fs';
import { checkHostLookups } from '../../scripts/host-lookup-hook.mjs';

const logFile = process.env.HOST_LOOKUP_LOG;

if (logFile) {
  appendFileSync(logFile, `loaded ${process.pid}\n`);
  checkHostLookups((hostname) => {
    appendFileSync(logFile, `lookup ${hostname}\n`);
    return undefined;
  });
}
