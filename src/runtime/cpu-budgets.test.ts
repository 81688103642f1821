import { describe, expect, it } from 'vitest';
import { CpuBudgets } from './cpu-budgets.js';

describe('CPU budgets of requests in flight', () => {
  it('gives the smallest own limit in flight, forgets answered requests, and entries whose answer never came', () => {
    let now = 0;
    const b = new CpuBudgets(() => now);
    expect(b.smallest(1)).toBeUndefined();
    b.begin('r1', 500, 1);
    b.begin('r2', 100, 1);
    expect(b.smallest(1)).toBe(100);
    b.end(['r2', 'unknown']);
    expect(b.smallest(1)).toBe(500);
    now = 16 * 60_000;
    b.begin('r3', 800, 1);
    expect(b.smallest(1)).toBe(800); // r1 went stale
    b.forget(1);
    expect(b.smallest(1)).toBeUndefined();
  });

  it('holds each generation to its own requests\' limits, and forgets only the entries of a generation that is gone', () => {
    const b = new CpuBudgets(() => 0);
    b.begin('old-gen', 100, 1);
    b.begin('new-gen', 300, 2);
    // a draining generation's low limit does not tighten the live one's (a healthy busy request there is not stopped)
    expect([b.smallest(1), b.smallest(2), b.smallest(3)]).toEqual([100, 300, undefined]);
    b.forget(2);
    expect([b.smallest(1), b.smallest(2)]).toEqual([100, undefined]);
    b.forget(1);
    expect(b.smallest(1)).toBeUndefined();
  });
});
