/** Compares the outcomes of one group, step by step, applying each step's named difference. */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect } from 'vitest';
import { withStorageClass } from './differences.js';
import type { Outcomes } from './runners.js';
import type { StepGroup } from './step.js';

/**
 * Asserts Stratus's outcome of every step equals Miniflare's, or (for a step that names a difference) the
 * outcome that difference prescribes. Every object's storage class goes through the storage-class
 * difference ('' in the simulator, 'Standard' by default in Stratus). Uses soft assertions so one run
 * reports every mismatching step. Returns the names of the differences met.
 */
export function compareGroup(group: StepGroup, miniflare: Outcomes, stratus: Outcomes): string[] {
  expect(stratus.length).toBe(group.steps.length);
  expect(miniflare.length).toBe(group.steps.length);
  const met: string[] = [];
  group.steps.forEach((s, i) => {
    let expected: any;
    if (s.diff) {
      met.push(s.diff.difference.name);
      expected = withStorageClass(s.diff.expected(miniflare[i]));
    } else {
      expected = withStorageClass(miniflare[i]);
    }
    expect.soft(stratus[i], `${group.name} #${i + 1} "${s.name}"${s.diff ? ` (expected difference: ${s.diff.difference.name})` : ''}; simulator said ${JSON.stringify(miniflare[i])}`).toEqual(expected);
  });
  return met;
}
