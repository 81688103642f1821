import { describe, expect, it } from 'vitest';
import { CpuBudgets } from './cpu-budgets.js';

describe('CPU budgets of requests in flight', () => {
  it('gives the smallest own limit in flight, forgets answered requests, and entries whose answer never came', () => {
    let now = 0;
    const b = new CpuBudgets(() => now);
    expect(b.smallest()).toBeUndefined();
    b.begin('r1', 500);
    b.begin('r2', 100);
    expect(b.smallest()).toBe(100);
    b.end(['r2', 'unknown']);
    expect(b.smallest()).toBe(500);
    now = 16 * 60_000;
    b.begin('r3', 800);
    expect(b.smallest()).toBe(800); // r1 went stale
    b.forget(0);
    expect(b.smallest()).toBeUndefined();
  });

  it('forgets only the entries of a generation that is gone: a draining generation keeps its requests\' limits', () => {
    const b = new CpuBudgets(() => 0);
    b.begin('old-gen', 100, 1);
    b.begin('new-gen', 300, 2);
    b.forget(2);
    expect(b.smallest()).toBe(100);
    b.forget(1);
    expect(b.smallest()).toBeUndefined();
  });
});
