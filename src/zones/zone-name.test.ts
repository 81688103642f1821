import { describe, expect, it } from 'vitest';
import { normalizeZoneName } from './zone-name.js';

describe('normalizeZoneName', () => {
  it('lowercases, trims, drops the trailing dot and converts IDN to Punycode', () => {
    expect(normalizeZoneName(' Example.COM. ')).toBe('example.com');
    expect(normalizeZoneName('bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalizeZoneName('a-1.co.uk')).toBe('a-1.co.uk');
  });

  it('refuses what is not a zone name', () => {
    for (const bad of ['', 'localhost', '-a.example', 'a-.example', 'a..example', 'under_score.example', 'sp ace.example', `${'a'.repeat(64)}.example`, 42, null]) {
      expect(normalizeZoneName(bad)).toBeUndefined();
    }
  });
});
