/** Ending a child process of a test. */
import type { ChildProcess } from 'node:child_process';

/** Sends SIGTERM to `child` (unless it has exited) and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
