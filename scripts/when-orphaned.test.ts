import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const helper = pathToFileURL('scripts/when-orphaned.mjs').href;
// Keeps itself alive, prints its pid and its parent's, and exits only through whenOrphaned.
const watcher = `import(${JSON.stringify(helper)}).then(({ whenOrphaned }) => {
  whenOrphaned(() => process.exit(0));
  setInterval(() => {}, 1_000);
  console.log(process.pid, process.ppid);
});`;
// A process that starts `script` and then waits forever, as npm and the shell it runs a script through do.
const starting = (script: string) =>
  `const c = require('node:child_process').spawn(process.execPath, ${script}, { stdio: ['ignore', 'inherit', 'inherit'] }); setInterval(() => {}, 1_000);`;
const watcherArgs = JSON.stringify(['--input-type=module', '-e', watcher]);

async function startChain(depth: 1 | 2) {
  const inner = depth === 1 ? watcherArgs : JSON.stringify(['-e', starting(watcherArgs)]);
  const top = spawn(process.execPath, ['-e', starting(inner)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [output] = await once(top.stdout, 'data');
  const [watcherPid, parentPid] = String(output).trim().split(' ').map(Number);
  return { top, watcherPid: watcherPid as number, parentPid: parentPid as number };
}

async function expectStopped(pid: number) {
  const deadline = Date.now() + 5_000;
  while (isRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(isRunning(pid)).toBe(false);
}

function cleanUp(top: ChildProcess, pids: number[]) {
  for (const pid of pids) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  top.kill('SIGKILL');
}

describe('whenOrphaned (scripts/when-orphaned.mjs)', () => {
  it('stops a process once the process that started it is gone, and not before', async () => {
    const { top, watcherPid } = await startChain(1);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(isRunning(watcherPid)).toBe(true);

      top.kill('SIGKILL');
      await expectStopped(watcherPid);
    } finally {
      cleanUp(top, [watcherPid]);
    }
  }, 20_000);

  it.runIf(process.platform === 'linux')(
    'stops a process once the one that started its parent is gone, though the parent lives on (npm gone, its `sh -c` not)',
    async () => {
      const { top, watcherPid, parentPid: middlePid } = await startChain(2);
      try {
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        expect(isRunning(watcherPid)).toBe(true);

        top.kill('SIGKILL');
        await expectStopped(watcherPid);
        expect(isRunning(middlePid)).toBe(true);
      } finally {
        cleanUp(top, [watcherPid, middlePid]);
      }
    },
    20_000,
  );
});
