import { expect, it } from 'vitest';
import { isId, newId, newOrderedId } from './ids.js';

it('ordered ids have the v4 shape, sort in the order they were made (within a millisecond too), and differ', () => {
  const ids = [newOrderedId(1000), ...Array.from({ length: 70_000 }, () => newOrderedId(1000)), newOrderedId(999), newOrderedId(5000)];
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  expect(ids.every(isId)).toBe(true);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
  expect(newOrderedId().slice(0, 12) > ids.at(-1)!.slice(0, 12)).toBe(true);
});

it('random ids stay random (not ordered)', () => {
  const ids = Array.from({ length: 100 }, () => newId());
  expect([...ids].sort()).not.toEqual(ids);
});
