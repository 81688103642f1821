/** The TCP ports a process listens on, for tests that reach a workerd generation's internal port directly. */
import fs from 'node:fs';

/** The TCP ports process `pid` listens on (its sockets' inodes matched in /proc/net/tcp). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch { /* closed meanwhile */ }
  }
  return fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/))
    .filter((f) => f[3] === '0A' && inodes.has(f[9]!)).map((f) => parseInt(f[1]!.split(':')[1]!, 16));
}
