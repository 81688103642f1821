import { describe, expect, it } from 'vitest';
import { parseRange, rangeValues, substitute } from './generate.js';

describe('$GENERATE helpers', () => {
  it('substitutes the iterator with offset, width and base', () => {
    expect(substitute('host-$', 7)).toBe('host-7');
    expect(substitute('${10,4,d}', 7)).toBe('0017');
    expect(substitute('${0,2,X}', 255)).toBe('FF');
    expect(substitute('${0,0,o}', 8)).toBe('10');
    expect(substitute('${0,7,n}.ip6', 0x1a)).toBe('a.1.0.0.ip6');
    expect(substitute('${0,0,N}', 0xab)).toBe('B.A');
    expect(substitute('\\$ and $$ stay', 1)).toBe('$ and $ stay');
  });

  it('reads ranges and refuses bad ones', () => {
    expect(rangeValues(parseRange('1-10/4'))).toEqual([1, 5, 9]);
    expect(() => parseRange('a-b')).toThrow(/must be start-stop/);
    expect(() => parseRange('1-2/0')).toThrow(/step must be at least 1/);
    expect(() => parseRange('0-70000')).toThrow(/more than 65536/);
    expect(() => substitute('${x}', 1)).toThrow(/bad modifier/);
    expect(() => substitute('${1', 1)).toThrow(/unclosed/);
  });
});
