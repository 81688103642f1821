/**
 * A process's `/proc/<pid>/stat` on Linux, as its fields from the third (`state`) on: the second field, the
 * command in parentheses, may itself hold spaces and parentheses, so the fields start after its last `)`. Index
 * 0 is field 3 of proc(5): `[1]` the parent pid, `[11]`/`[12]` user and system time (clock ticks), `[19]` the
 * start time (clock ticks since boot).
 */
import fs from 'node:fs';

/** The fields of `pid`'s stat from the third on; undefined when it cannot be read (no such process, or no /proc). */
export function procStatFields(pid: number | string): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, every thread) process `pid` has used, ms; undefined when it cannot be read. */
export function cpuTimeMs(pid: number): number | undefined {
  const fields = procStatFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10 : undefined; // clock ticks of 10 ms (USER_HZ 100)
}
