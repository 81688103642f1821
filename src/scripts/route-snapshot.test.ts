import { describe, expect, it } from 'vitest';
import { pickVersion } from './route-snapshot.js';

describe('traffic split', () => {
  it('picks by percentage', () => {
    const split = [{ version_id: 'a', percentage: 25 }, { version_id: 'b', percentage: 75 }];
    expect(pickVersion(split, () => 0)).toBe('a');
    expect(pickVersion(split, () => 0.2499)).toBe('a');
    expect(pickVersion(split, () => 0.25)).toBe('b');
    expect(pickVersion(split, () => 0.9999)).toBe('b');
    expect(pickVersion([{ version_id: 'only', percentage: 100 }], () => 0.99)).toBe('only');
    expect(pickVersion([])).toBeUndefined();
  });
});
