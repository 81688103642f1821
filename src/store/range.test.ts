import { describe, expect, it } from 'vitest';
import { parseRange, resolveRange, resolveRangeHeader } from './range.js';

const resolve = (r: unknown, size = 10) => resolveRange(parseRange(r), size);

describe('parseRange', () => {
  it('throws the runtime texts', () => {
    expect(() => parseRange({ offset: -1 })).toThrow(new RangeError('Invalid range. Starting offset (-1) must be greater than or equal to 0.'));
    expect(() => parseRange({ offset: 1.5 })).toThrow('Invalid range. Starting offset (1.5) must be an integer, not floating point.');
    expect(() => parseRange({ offset: NaN })).toThrow('Invalid range. Starting offset (nan) must be greater than or equal to 0.');
    expect(() => parseRange({ length: -1 })).toThrow('Invalid range. Length (-1) must be greater than or equal to 0.');
    expect(() => parseRange({ length: 1.5 })).toThrow('Invalid range. Length (1.5) must be an integer, not floating point.');
    expect(() => parseRange({ suffix: 1, offset: 0 })).toThrow(new TypeError('Suffix is incompatible with offset.'));
    expect(() => parseRange({ suffix: 1, length: 0 })).toThrow(new TypeError('Suffix is incompatible with length.'));
    expect(() => parseRange({ suffix: -1 })).toThrow('Invalid suffix. Suffix (-1) must be greater than or equal to 0.');
    expect(() => parseRange({ suffix: 1.5 })).toThrow('Invalid range. Suffix (1.5) must be an integer, not floating point.');
  });
  it('coerces number-like strings', () => {
    expect(parseRange({ offset: '3' })).toEqual({ offset: 3 });
  });
});

describe('resolveRange', () => {
  it('matches the reference table for a 10-byte object', () => {
    expect(resolve({ offset: 3 })).toEqual({ offset: 3, length: 7 });
    expect(resolve({ length: 42 })).toEqual({ offset: 0, length: 10 });
    expect(resolve({ offset: 9, length: 5 })).toEqual({ offset: 9, length: 1 });
    expect(resolve({ suffix: 3 })).toEqual({ offset: 7, length: 3 });
    expect(resolve({ suffix: 42 })).toEqual({ offset: 0, length: 10 });
    expect(resolve(undefined)).toEqual({ offset: 0, length: 10 });
    for (const bad of [{ offset: 10 }, { offset: 11 }, { length: 0 }, { offset: 0, length: 0 }, { suffix: 0 }, { offset: 10, length: 1 }]) {
      expect(() => resolve(bad), JSON.stringify(bad)).toThrow('The requested range is not satisfiable');
    }
  });
  it('empty object: plain read works, explicit ranges fail', () => {
    expect(resolve(undefined, 0)).toEqual({ offset: 0, length: 0 });
    expect(() => resolve({ offset: 0 }, 0)).toThrow(/not satisfiable/);
    expect(() => resolve({ suffix: 1 }, 0)).toThrow(/not satisfiable/);
    expect(() => resolve({ length: 1 }, 0)).toThrow(/not satisfiable/);
  });
  it('Range header: one satisfiable range, else the whole object', () => {
    expect(resolveRangeHeader('bytes=2-4', 10)).toEqual({ offset: 2, length: 3 });
    expect(resolveRangeHeader('bytes=2-', 10)).toEqual({ offset: 2, length: 8 });
    expect(resolveRangeHeader('Bytes = 5-100', 10)).toEqual({ offset: 5, length: 5 });
    expect(resolveRangeHeader('bytes=-3', 10)).toEqual({ offset: 7, length: 3 });
    for (const whole of ['bytes=-0', 'bytes=-10', 'bytes=20-30', 'bytes=6-3', 'bytes=10-', 'foo', 'items=0-1', 'bytes=0-1,4-5']) {
      expect(resolveRangeHeader(whole, 10), whole).toEqual({ offset: 0, length: 10 });
    }
    expect(resolveRange(parseRange(new Headers({ range: 'bytes=1-2' })), 10)).toEqual({ offset: 1, length: 2 });
  });
});
