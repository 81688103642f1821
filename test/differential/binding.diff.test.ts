/**
 * The differential suite: the same sequence of binding calls run inside Miniflare (the production
 * simulator, real workerd binding) and against Stratus (`openBucketStore` on a temporary folder), each result
 * normalized and compared field by field. Where Stratus deliberately differs, the step names the difference
 * (differences.ts) and the difference itself is asserted. One Miniflare for the whole file (its start-up is slow).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareGroup } from './compare.js';
import { DIFF } from './differences.js';
import { startMiniflareSide, startStratusSide, type MiniflareSide, type StratusSide } from './runners.js';
import type { StepGroup } from './step.js';
import { conditionalSteps } from './steps-conditionals.js';
import { listSteps } from './steps-list.js';
import { multipartSteps } from './steps-multipart.js';
import { objectSteps } from './steps-objects.js';
import { rangeSteps } from './steps-ranges.js';

const GROUPS: StepGroup[] = [objectSteps, conditionalSteps, rangeSteps, listSteps, multipartSteps];

describe('differential: Stratus vs Miniflare', () => {
  let mf: MiniflareSide;
  let stratus: StratusSide;
  const met = new Set<string>();

  beforeAll(async () => {
    mf = await startMiniflareSide(GROUPS);
    stratus = await startStratusSide();
  });
  afterAll(async () => {
    await mf?.dispose();
    await stratus?.close();
  });

  it('has at least 100 operations', () => {
    expect(GROUPS.reduce((n, g) => n + g.steps.length, 0)).toBeGreaterThanOrEqual(100);
  });

  for (const group of GROUPS) {
    it(`group "${group.name}" (${group.steps.length} steps) matches step by step`, async () => {
      const [m, s] = await Promise.all([mf.run(group), stratus.run(group)]);
      for (const name of compareGroup(group, m, s)) met.add(name);
    });
  }

  it('part etags are the MD5 hex of the part (the partEtags difference, checked exactly)', async () => {
    const upload = await stratus.store.bucket('extra').createMultipartUpload('k');
    const part = await upload.uploadPart(1, 'part bytes');
    expect(part).toEqual({ partNumber: 1, etag: crypto.createHash('md5').update('part bytes').digest('hex') });
    await upload.abort();
  });

  it('met every deliberate difference of the design table', () => {
    expect([...met].sort()).toEqual(Object.values(DIFF).map((d) => d.name).sort());
  });
});
