/**
 * Differential test: object operations (put/get/head/delete, values, metadata, bodies, checksums, keys and
 * limits, SSE-C, storage class) against Miniflare and Stratus, compared field by field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIFF } from './differences.js';
import { compareGroup } from './compare.js';
import { startMiniflareSide, startStratusSide, type MiniflareSide, type StratusSide } from './runners.js';
import { objectSteps } from './steps-objects.js';

describe('differential: objects', () => {
  let mf: MiniflareSide;
  let stratus: StratusSide;
  beforeAll(async () => {
    mf = await startMiniflareSide([objectSteps]);
    stratus = await startStratusSide();
  });
  afterAll(async () => {
    await mf?.dispose();
    await stratus?.close();
  });

  it('the simulator behaves as the reference says (harness sanity)', async () => {
    const out = await mf.run(objectSteps);
    expect(out[0].ok.etag).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(out[3]).toEqual({ ok: null });
  });

  it('Stratus answers every step as the simulator does, or as the named difference says', async () => {
    const [m, s] = [await mf.run(objectSteps), await stratus.run(objectSteps)];
    const met = compareGroup(objectSteps, m, s);
    expect(met).toEqual(expect.arrayContaining([DIFF.customMetadataLimit.name, DIFF.storageClass.name, DIFF.ssec.name]));
  });
});
