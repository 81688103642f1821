/**
 * npm and npx run a package's bin through `sh -c`, and on SIGINT/SIGTERM forward the signal to that shell
 * only: the shell dies and `stratus serve` would live on, orphaned, holding its ports. Started by npm, Stratus
 * therefore watches its parent and stops (as on SIGTERM) once it is gone. Started otherwise (a process
 * manager, `nohup stratus serve &`) an exiting parent is no reason to stop, and nothing is watched.
 */

/** Calls `onGone` once when the parent process exits, if this process was started by npm or npx. */
export function stopWithNpmParent(env: Record<string, string | undefined>, onGone: () => void, intervalMs = 500): void {
  if (env.npm_command === undefined && env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
}
