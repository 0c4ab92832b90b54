import { spawn } from 'node:child_process';
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

describe('whenOrphaned (scripts/when-orphaned.mjs)', () => {
  it('stops a process once the process that started it is gone, and not before', async () => {
    const helper = pathToFileURL('scripts/when-orphaned.mjs').href;
    // The child keeps itself alive and exits only through whenOrphaned; its parent waits forever.
    const child = `import(${JSON.stringify(helper)}).then(({ whenOrphaned }) => {
      whenOrphaned(() => process.exit(0));
      setInterval(() => {}, 1_000);
      console.log(process.pid);
    });`;
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(child)}], { stdio: ['ignore', 'inherit', 'inherit'] }); setInterval(() => {}, 1_000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [output] = await once(parent.stdout, 'data');
    const childPid = Number(String(output).trim());
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(isRunning(childPid)).toBe(true);

      parent.kill('SIGKILL');
      const deadline = Date.now() + 5_000;
      while (isRunning(childPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(isRunning(childPid)).toBe(false);
    } finally {
      if (isRunning(childPid)) process.kill(childPid, 'SIGKILL');
      parent.kill('SIGKILL');
    }
  }, 20_000);
});
