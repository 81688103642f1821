import { describe, expect, it } from 'vitest';
import { jsonDeeperThan } from './body-limit.js';

describe('jsonDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings or after escapes', () => {
    expect(jsonDeeperThan('[[[]]]', 3)).toBe(false);
    expect(jsonDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(jsonDeeperThan('{"a":{"b":{"c":1}}}', 3)).toBe(false);
    expect(jsonDeeperThan('{"a":{"b":{"c":{}}}}', 3)).toBe(true);
    expect(jsonDeeperThan(`{"a":"${'['.repeat(100)}"}`, 3)).toBe(false);
    expect(jsonDeeperThan(`{"a":"\\"${'['.repeat(100)}"}`, 3)).toBe(false);
    expect(jsonDeeperThan('[1,[2],[3],[[4]]]', 3)).toBe(false);
  });
});
