import { describe, expect, it } from 'vitest';
import { rangeFrom } from './headers.js';

const range = (value?: string) => rangeFrom(new Headers(value === undefined ? {} : { range: value }));

describe('rangeFrom', () => {
  it('reads one bytes= range: first-last, first- and -suffix', () => {
    expect(range('bytes=2-5')).toEqual({ offset: 2, length: 4 });
    expect(range('bytes=0-')).toEqual({ offset: 0 });
    expect(range('bytes=-3')).toEqual({ suffix: 3 });
    expect(range(' Bytes = 7 - 7 ')).toEqual({ offset: 7, length: 1 });
  });

  it('keeps ranges past the end (the store answers InvalidRange) and a zero suffix', () => {
    expect(range('bytes=10-20')).toEqual({ offset: 10, length: 11 });
    expect(range('bytes=-0')).toEqual({ suffix: 0 });
  });

  it('ignores what S3 ignores: absent, malformed, several ranges, last before first', () => {
    for (const v of [undefined, '', 'bytes=', 'bytes=-', 'items=0-1', 'bytes=0-1,3-4', 'bytes=10-9', 'bytes=a-b']) expect(range(v)).toBeUndefined();
  });
});
