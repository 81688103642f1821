import { describe, expect, it } from 'vitest';
import { AccountSlots } from './account-slots.js';

describe('AccountSlots', () => {
  it('gives each of the first N accounts a slot of its own, then spreads the rest evenly; an account keeps its slot', () => {
    const slots = new AccountSlots(3);
    expect(['a', 'b', 'c'].map((a) => slots.slotOf(a))).toEqual([1, 2, 3]);
    expect(slots.slotOf('b')).toBe(2);
    expect(['d', 'e', 'f', 'g'].map((a) => slots.slotOf(a))).toEqual([1, 2, 3, 1]);
    expect(slots.load()).toEqual([3, 2, 2]);
    expect(slots.assigned('a')).toBe(1);
    expect(slots.assigned('unknown')).toBeUndefined();
  });

  it('puts every account in the shared slot 0 when there are no account runtimes', () => {
    const slots = new AccountSlots(0);
    expect([slots.slotOf('a'), slots.slotOf('b'), slots.assigned('c')]).toEqual([0, 0, 0]);
  });
});
