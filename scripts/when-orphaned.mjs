// @ts-check
// npm runs a script through `sh -c`, which does not always pass on a SIGTERM sent to npm alone (a
// process manager's or an editor's stop): npm can be gone while the shell and the script live on,
// reparented, keeping their ports. So the shell's own parent is watched too, where Linux shows it.
import { readFileSync } from 'node:fs';

/**
 * The parent of `pid` as /proc shows it, or undefined where there is no /proc or no such process.
 * @param {number} pid
 * @returns {number | undefined}
 */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (name) state ppid ...": the name may hold spaces and parentheses, so count from the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** This process's parent and that one's parent, as they are now. */
export function ancestorsNow() {
  return { parentPid: process.ppid, grandparentPid: parentOf(process.ppid) };
}

/**
 * Calls `stop` once the process that started this one, or the process that started that one, is
 * gone (checked each second).
 * @param {() => void} stop
 * @param {{ parentPid: number, grandparentPid: number | undefined }} ancestors as read when this
 *   process started
 */
export function whenOrphaned(stop, { parentPid, grandparentPid } = ancestorsNow()) {
  const check = setInterval(() => {
    if (process.ppid === parentPid && parentOf(parentPid) === grandparentPid) return;
    clearInterval(check);
    stop();
  }, 1_000);
  check.unref();
}
