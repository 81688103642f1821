import { describe, expect, it } from 'vitest';
import { compareUtf8, prefixUpperBoundText } from './keys.js';

describe('prefixUpperBoundText', () => {
  it('bounds every string starting with the prefix, in UTF-8 byte order', () => {
    for (const prefix of ['a', 'a/', 'é', '\uD7FF', '\uFFFF', '🙂', 'x\u{10FFFF}']) {
      const upper = prefixUpperBoundText(prefix)!;
      for (const tail of ['', '\0', 'z', '\u{10FFFF}', '\u{10FFFF}\u{10FFFF}']) expect(compareUtf8(prefix + tail, upper)).toBeLessThan(0);
      expect(compareUtf8(prefix, upper)).toBeLessThan(0);
    }
  });

  it('is the next code point, skipping the surrogates', () => {
    expect(prefixUpperBoundText('ab')).toBe('ac');
    expect(prefixUpperBoundText('\uD7FF')).toBe('\uE000');
    expect(prefixUpperBoundText('\uFFFF')).toBe('\u{10000}');
    expect(prefixUpperBoundText('a\u{10FFFF}')).toBe('b');
  });

  it('is null when no string bounds the prefix', () => {
    expect(prefixUpperBoundText('')).toBeNull();
    expect(prefixUpperBoundText('\u{10FFFF}\u{10FFFF}')).toBeNull();
  });
});
