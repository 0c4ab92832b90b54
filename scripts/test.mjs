// `npm test`: lint, types, unit tests and browser tests, each run even when an earlier one fails,
// then one summary line `N passed, N failed` (lint and type checks count as one test each).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

function countCheck(name, ok) {
  if (ok) passed += 1;
  else {
    failed += 1;
    problems.push(name);
  }
}

countCheck('lint', run('npx', ['biome', 'check', '.']));
countCheck('typecheck', run('npx', ['tsc', '--noEmit']));

const unitOk = run('npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
]);
const unit = readJson(vitestReport);
if (unit) {
  passed += unit.numPassedTests;
  failed += unit.numFailedTests;
}
if (!unitOk && (!unit || unit.numFailedTests === 0)) countCheck('unit tests (did not run)', false);
else if (!unitOk) problems.push('unit tests');

const e2eOk = run('npx', ['playwright', 'test', '--reporter=list,json'], {
  PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
});
const e2e = readJson(playwrightReport);
if (e2e) {
  passed += e2e.stats.expected + e2e.stats.flaky;
  failed += e2e.stats.unexpected;
}
if (!e2eOk && (!e2e || e2e.stats.unexpected === 0)) countCheck('browser tests (did not run)', false);
else if (!e2eOk) problems.push('browser tests');

rmSync(reports, { recursive: true, force: true });
if (problems.length > 0) console.log(`\nFailed: ${problems.join(', ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || problems.length > 0 ? 1 : 0);
