import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BusyStretch, readMainThread } from './busy-stretch.js';

/** Readings every 100 ms of a thread runnable for `share` of each interval, using `cpuShare` of it on a CPU. */
function readings(count: number, share: number, cpuShare = share) {
  return Array.from({ length: count }, (_, i) => ({ at: i * 100, runnableMs: i * 100 * share, cpuMs: i * 100 * cpuShare }));
}

describe('a thread busy without a pause (draining generations)', () => {
  it('reports a thread runnable throughout, with CPU time, once the stretch reaches the limit', () => {
    const s = new BusyStretch();
    const seen = readings(8, 1).map((r) => s.observe(r, 500));
    expect(seen.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(seen[5]).toBe(500);
  });

  it('starts over when the thread went back to its event loop in an interval', () => {
    const s = new BusyStretch();
    for (const r of readings(5, 1)) s.observe(r, 500);
    expect(s.observe({ at: 500, runnableMs: 430, cpuMs: 430 }, 500)).toBeUndefined(); // 30 ms runnable in 100
    expect(s.observe({ at: 600, runnableMs: 530, cpuMs: 530 }, 500)).toBeUndefined();
    expect(s.observe({ at: 900, runnableMs: 830, cpuMs: 830 }, 500)).toBeUndefined();
    expect(s.observe({ at: 1000, runnableMs: 930, cpuMs: 930 }, 500)).toBe(500); // 500 ms since the pause
  });

  it('does not report a thread that waits for a CPU on a crowded machine without getting CPU time', () => {
    const s = new BusyStretch();
    expect(readings(20, 1, 0.01).map((r) => s.observe(r, 500)).every((v) => v === undefined)).toBe(true);
    // a twentieth of the stretch on a CPU is enough: a loop sharing a core with ten others
    const t = new BusyStretch();
    expect(readings(8, 1, 0.1).map((r) => t.observe(r, 500)).find((v) => v !== undefined)).toBe(500);
  });

  it("reads a real process's main thread: a busy loop is runnable nearly throughout, a sleeping process is not", async () => {
    // Each says when it is past its start-up (Node compiling and loading is CPU work: busy, truly).
    const run = (code: string) => spawn(process.execPath, ['-e', `process.stdout.write('ready\\n'); ${code}`], { stdio: ['ignore', 'pipe', 'ignore'] });
    const ready = (child: ReturnType<typeof run>) => new Promise((resolve) => child.stdout!.once('data', resolve));
    const busy = run('for (;;) {}');
    const idle = run('setTimeout(() => {}, 60_000)');
    try {
      await Promise.all([ready(busy), ready(idle)]);
      const stretches = [new BusyStretch(), new BusyStretch()];
      let found: number | undefined;
      for (let i = 0; i < 200 && found === undefined; i++) {
        const now = performance.now();
        const [b, s] = [readMainThread(busy.pid!, now), readMainThread(idle.pid!, now)];
        expect(b).toBeDefined();
        expect(stretches[1]!.observe(s!, 300)).toBeUndefined();
        found = stretches[0]!.observe(b!, 300);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(found).toBeGreaterThanOrEqual(300);
      expect(readMainThread(2 ** 22 + 12345, 0)).toBeUndefined();
    } finally {
      busy.kill('SIGKILL');
      idle.kill('SIGKILL');
    }
  });
});
