import { describe, expect, it } from 'vitest';
import { EDGE_V8_FLAGS, edgeV8Flags, v8FlagsLine } from './gc-flags.js';

describe('the V8 flags of the edge\'s workerd processes', () => {
  it('are the small young generation by default, or STRATUS_WORKERD_V8_FLAGS (empty: none; nothing but flags)', () => {
    expect(edgeV8Flags({})).toEqual(EDGE_V8_FLAGS);
    expect(edgeV8Flags({ STRATUS_WORKERD_V8_FLAGS: '' })).toEqual([]);
    expect(edgeV8Flags({ STRATUS_WORKERD_V8_FLAGS: '--max-semi-space-size=2 "x" --trace-gc' })).toEqual(['--max-semi-space-size=2', '--trace-gc']);
    expect(v8FlagsLine(['--a=1'])).toBe('v8Flags = ["--a=1"],');
  });
});
