import { execFileSync } from 'node:child_process';

/** What `script` prints when run in a Node process with the guard preloaded, as Spotlight's is. */
function runGuarded(script: string): string {
  return execFileSync(
    process.execPath,
    ['--import', './scripts/loopback-only.mjs', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
      timeout: 10_000,
    },
  ).trim();
}

describe('the loopback-only preload', () => {
  it("refuses to resolve Sentry's ingest, by every way Node resolves a name, without asking a resolver", () => {
    const outcome = runGuarded(`
      import dns from 'node:dns';
      import https from 'node:https';
      const host = 'o1.ingest.us.sentry.io';
      const results = await Promise.allSettled([
        new Promise((resolve, reject) => dns.lookup(host, (error) => (error ? reject(error) : resolve()))),
        dns.promises.lookup(host),
        dns.promises.resolve4(host),
        new Promise((resolve, reject) => https.get('https://' + host + '/api/1/envelope/', resolve).on('error', reject)),
      ]);
      // The guard's own refusal: a real resolver would answer otherwise (or, offline, say something else).
      console.log(results.map((result) => result.status + ':' + /stays on loopback/.test(result.reason?.message)).join(' '));
    `);
    expect(outcome).toBe('rejected:true rejected:true rejected:true rejected:true');
  });

  it('still resolves localhost, where the sidecar and the app listen', () => {
    const outcome = runGuarded(`
      import dns from 'node:dns';
      const { address } = await dns.promises.lookup('localhost', { family: 4 });
      console.log(address);
    `);
    expect(outcome).toBe('127.0.0.1');
  });
});
