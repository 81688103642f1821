/**
 * The guest's halt polling (Linux's cpuidle-haltpoll driver in a KVM guest): how long an idle vCPU polls for work
 * before it halts. At 0 an idle vCPU halts at once, and a thread woken on it (a timer, a packet, another process's
 * write) waits until the host runs the vCPU again: on a busy host, milliseconds. That wait is in every hop of a
 * request, so the open loop's p99 on such a guest measures the host as much as the software (docs/edge-performance.md,
 * "Reading a run: the machine's floor").
 */
import fs from 'node:fs';

const DRIVER = '/sys/devices/system/cpu/cpuidle/current_driver';
const POLL_NS = '/sys/module/haltpoll/parameters/guest_halt_poll_ns';

/** The cpuidle driver and, with haltpoll, its polling limit in ns; undefined where there is none (not a KVM guest, or no sysfs). */
export function haltPoll() {
  try {
    const driver = fs.readFileSync(DRIVER, 'utf8').trim();
    return { driver, ns: driver === 'haltpoll' ? Number(fs.readFileSync(POLL_NS, 'utf8')) : undefined };
  } catch {
    return undefined;
  }
}

/** One line saying how this machine's idle vCPUs wake, for a benchmark's header. */
export function haltPollLine() {
  const h = haltPoll();
  if (!h) return 'cpuidle: not readable (not a Linux KVM guest, or no sysfs)';
  if (h.driver !== 'haltpoll') return `cpuidle driver ${h.driver}`;
  return `cpuidle driver haltpoll, guest_halt_poll_ns ${h.ns}${h.ns === 0 ? ' (an idle vCPU halts at once: each wake-up waits for the host)' : ''}`;
}

/**
 * Sets the guest's halt-polling limit (root, a haltpoll guest) for this process's lifetime: the previous value is
 * written back when it exits. Throws where it cannot be set.
 */
export function setHaltPoll(ns) {
  const before = haltPoll();
  if (before?.driver !== 'haltpoll') throw new Error(`--halt-poll: this machine's cpuidle driver is ${before?.driver ?? 'unknown'}, not haltpoll`);
  fs.writeFileSync(POLL_NS, String(ns));
  process.on('exit', () => fs.writeFileSync(POLL_NS, String(before.ns)));
  // a signal ends the process through 'exit' (the write-back above, and the peers' own exit listeners)
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
}
