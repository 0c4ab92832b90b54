// `npm test`: lint, types, unit tests, browser tests and the multi-instance deployment tests, each
// run even when an earlier one fails, then one summary line `N passed, N failed` (lint and type
// checks count as one test each).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const reports = mkdtempSync(join(tmpdir(), 'test-reports-'));
const vitestReport = join(reports, 'vitest.json');
const playwrightReport = join(reports, 'playwright.json');

function run(command, args, env = {}) {
  console.log(`\n$ ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status === 0;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

let passed = 0;
let failed = 0;
const problems = [];

/** Adds a step's result: its own test counts when it wrote a report, else one check for the step. */
function count(name, ok, counts) {
  if (counts) {
    passed += counts.passed;
    failed += counts.failed;
  }
  if (ok) {
    if (!counts) passed += 1;
    return;
  }
  problems.push(name);
  if (!counts || counts.failed === 0) failed += 1;
}

count('lint', run('npx', ['biome', 'check', '.']));
count('typecheck', run('npx', ['tsc', '--noEmit']));

const unitOk = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
]);
const unit = readJson(vitestReport);
count('unit tests', unitOk, unit && { passed: unit.numPassedTests, failed: unit.numFailedTests });

const e2eOk = run('npx', ['playwright', 'test', '--reporter=list,json'], {
  PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
});
const e2e = readJson(playwrightReport);
count('browser tests', e2eOk, e2e && { passed: e2e.stats.expected + e2e.stats.flaky, failed: e2e.stats.unexpected });

// Several standalone instances behind nginx (playwright.deploy.config.ts), after the main suite:
// both use the one envelope sink's port.
// On a developer machine without nginx they are skipped, saying so; CI always runs them.
const nginx = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
if (!existsSync(nginx) && process.env.CI !== 'true') {
  console.log(`\nSkipped the deployment tests: no nginx at ${nginx} (install it, or set NGINX_PATH).`);
} else {
  const deployReport = join(reports, 'deploy.json');
  const deployOk = run(
    'npx',
    ['playwright', 'test', '--config', 'playwright.deploy.config.ts', '--reporter=list,json'],
    {
      PLAYWRIGHT_JSON_OUTPUT_NAME: deployReport,
    },
  );
  const deploy = readJson(deployReport);
  count(
    'deployment tests',
    deployOk,
    deploy && { passed: deploy.stats.expected + deploy.stats.flaky, failed: deploy.stats.unexpected },
  );
}

rmSync(reports, { recursive: true, force: true });
if (problems.length > 0) console.log(`\nFailed: ${problems.join(', ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(problems.length > 0 ? 1 : 0);
