import { describe, expect, it } from 'vitest';
import { parseListOptions } from './list.js';
import type { BucketSettings } from './context.js';

const modern: BucketSettings = { name: 'b', honorInclude: true, keepDelimiter: false, defaultStorageClass: 'Standard' };
const old: BucketSettings = { ...modern, honorInclude: false };
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: number }).code;
  }
  return undefined;
};

describe('parseListOptions', () => {
  it('defaults', () => {
    expect(parseListOptions(undefined, modern)).toEqual({ limit: 1000, prefix: '', after: undefined, delimiter: '', include: { http: false, custom: false } });
    expect(parseListOptions({}, old).include).toEqual({ http: true, custom: true });
  });
  it('converts limit like the runtime', () => {
    expect(parseListOptions({ limit: 1.9 }, modern).limit).toBe(1);
    expect(parseListOptions({ limit: '5' }, modern).limit).toBe(5);
    expect(parseListOptions({ limit: true }, modern).limit).toBe(1);
    expect(parseListOptions({ limit: -1 }, modern).limit).toBe(1000);
    expect(code(() => parseListOptions({ limit: NaN }, modern))).toBe(10022);
    expect(code(() => parseListOptions({ limit: 'abc' }, modern))).toBe(10022);
    expect(code(() => parseListOptions({ limit: -2 }, modern))).toBe(10022);
    expect(() => parseListOptions({ limit: -(2 ** 31) - 1 }, modern)).toThrow(TypeError);
  });
  it('cursor and startAfter: the larger one wins (UTF-8 order)', () => {
    const cursor = Buffer.from('🙂').toString('base64');
    expect(parseListOptions({ cursor, startAfter: '\uFFFF' }, modern).after).toBe('🙂');
    expect(parseListOptions({ cursor: Buffer.from('a').toString('base64'), startAfter: 'b' }, modern).after).toBe('b');
    expect(parseListOptions({ cursor: '!!not base64!!' }, modern).after).toBeDefined();
  });
  it('include values and types', () => {
    expect(parseListOptions({ include: ['httpMetadata'] }, modern).include).toEqual({ http: true, custom: false });
    expect(() => parseListOptions({ include: 'httpMetadata' }, modern)).toThrow(
      "Incorrect type for the 'include' field on 'ListOptions': the provided value is not of type 'Array'.",
    );
    expect(() => parseListOptions({ include: ['x'] }, old)).toThrow(new RangeError('Unsupported include value x'));
    expect(() => parseListOptions({ delimiter: 1 }, modern)).toThrow(TypeError);
  });
});
