/**
 * The differential suite against a deployed script: the same groups run inside Miniflare and inside Stratus's
 * edge runtime (workerd, its own bucket binding, Stratus's store behind the store service), compared step by
 * step with the same named differences as the library-level suite (binding.diff.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareGroup } from './compare.js';
import { DIFF } from './differences.js';
import { startEdgeSide, type EdgeSide } from './runner-edge.js';
import { startMiniflareSide, type MiniflareSide } from './runners.js';
import type { StepGroup } from './step.js';
import { conditionalSteps } from './steps-conditionals.js';
import { listSteps } from './steps-list.js';
import { multipartSteps } from './steps-multipart.js';
import { objectSteps } from './steps-objects.js';
import { rangeSteps } from './steps-ranges.js';

const GROUPS: StepGroup[] = [objectSteps, conditionalSteps, rangeSteps, listSteps, multipartSteps];

describe('differential: a script on the Stratus edge vs Miniflare', () => {
  let mf: MiniflareSide;
  let edge: EdgeSide;
  const met = new Set<string>();

  beforeAll(async () => {
    [mf, edge] = await Promise.all([startMiniflareSide(GROUPS), startEdgeSide(GROUPS)]);
  }, 120_000);
  afterAll(async () => {
    await mf?.dispose();
    await edge?.close();
  });

  for (const group of GROUPS) {
    it(`group "${group.name}" (${group.steps.length} steps) matches step by step`, async () => {
      const [m, s] = await Promise.all([mf.run(group), edge.run(group)]);
      for (const name of compareGroup(group, m, s)) met.add(name);
    }, 120_000);
  }

  it('met every deliberate difference of the design table', () => {
    expect([...met].sort()).toEqual(Object.values(DIFF).map((d) => d.name).sort());
  });
});
