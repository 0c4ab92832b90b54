// npm runs a script through `sh -c`, which does not pass on a SIGTERM sent to npm alone (a process
// manager's or an editor's stop): the script then lives on, reparented, and keeps its ports.

/**
 * Calls `stop` once the process that started this one is gone (checked each second).
 * @param {() => void} stop
 * @param {number} parentPid that process, as read when this one started
 */
export function whenOrphaned(stop, parentPid = process.ppid) {
  const check = setInterval(() => {
    if (process.ppid === parentPid) return;
    clearInterval(check);
    stop();
  }, 1_000);
  check.unref();
}
