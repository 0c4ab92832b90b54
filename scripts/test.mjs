// @ts-check
// `npm test`: lint, types, unit tests, the developer's loop (`npm run dev` from a tree with no build
// output), browser tests and the multi-instance deployment tests, each run even when an earlier one
// fails, then one summary line `N passed, N failed` (lint and type checks count as one test each).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const reports = mkdtempSync(join(tmpdir(), 'test-reports-'));
const vitestReport = join(reports, 'vitest.json');

/**
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 */
function run(command, args, env = {}) {
  console.log(`\n$ ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status === 0;
}

/**
 * @param {string} path
 * @returns {any}
 */
function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

let passed = 0;
let failed = 0;
/** @type {string[]} */
const problems = [];
// Named again under the summary: a CI log's tail then says which test failed, not only which step.
/** @type {string[]} */
const failedTests = [];

/**
 * Adds a step's result: its own test counts when it wrote a report, else one check for the step.
 * @param {string} name
 * @param {boolean} ok
 * @param {{ passed: number, failed: number }} [counts]
 */
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
for (const file of unit?.testResults ?? []) {
  const path = relative(process.cwd(), String(file.name ?? ''));
  const failures = (file.assertionResults ?? []).filter((/** @type {any} */ test) => test.status === 'failed');
  for (const test of failures) failedTests.push(`${path} › ${test.fullName}`);
  // A file that fails as it loads, or in a hook around all its tests, fails no test of its own.
  if (file.status === 'failed' && failures.length === 0) failedTests.push(`${path} (the file itself)`);
}

/**
 * Each failed test of a Playwright JSON report's suites, as `file:line › title`, the file named
 * from the project's folder as the list reporter names it.
 * @param {any[]} suites
 * @param {string} testDir
 * @returns {string[]}
 */
function failedSpecs(suites, testDir) {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? [])
      .filter((/** @type {any} */ spec) => spec.tests?.some((/** @type {any} */ test) => test.status === 'unexpected'))
      .map((/** @type {any} */ spec) => `${join(testDir, String(spec.file ?? ''))}:${spec.line} › ${spec.title}`),
    ...failedSpecs(suite.suites ?? [], testDir),
  ]);
}

/**
 * One Playwright suite, its tests counted from its JSON report.
 * @param {string} name
 * @param {string[]} args
 */
function playwright(name, args) {
  const report = join(reports, `${name}.json`);
  const ok = run('npx', ['playwright', 'test', ...args, '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: report,
  });
  const json = readJson(report);
  const stats = json?.stats;
  count(name, ok, stats && { passed: stats.expected + stats.flaky, failed: stats.unexpected });
  if (!json) return;
  failedTests.push(...failedSpecs(json.suites ?? [], relative(process.cwd(), json.config?.rootDir ?? process.cwd())));
  // A spec file that fails as it loads, or a global set-up, fails no test of its own.
  for (const error of json.errors ?? []) {
    const where = error.location ? `${relative(process.cwd(), error.location.file)}:${error.location.line}` : name;
    failedTests.push(
      `${where} › ${String(error.message ?? error.value ?? 'an error outside any test').split('\n')[0]}`,
    );
  }
}

// Before anything builds: the dev server starts from its own empty folder, as on a fresh clone.
playwright('dev-server tests', ['--config', 'playwright.dev.config.ts']);
playwright('browser tests', []);

// Several standalone instances behind nginx (playwright.deploy.config.ts), after the main suite:
// both use the one envelope sink's port. On a developer machine without nginx they are skipped,
// saying so; CI always runs them.
const nginx = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
if (!existsSync(nginx) && process.env.CI !== 'true') {
  console.log(`\nSkipped the deployment tests: no nginx at ${nginx} (install it, or set NGINX_PATH).`);
} else {
  playwright('deployment tests', ['--config', 'playwright.deploy.config.ts']);
}

rmSync(reports, { recursive: true, force: true });
if (problems.length > 0) console.log(`\nFailed: ${problems.join(', ')}`);
for (const test of failedTests) console.log(`  ✘ ${test}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(problems.length > 0 ? 1 : 0);
