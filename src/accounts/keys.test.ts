import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, isValidEmail, isValidKey, keyMatches } from './keys.js';

describe('keys', () => {
  it('generates 37-hex keys, stores only their hash and compares in constant time', () => {
    const key = generateKey();
    expect(key).toMatch(/^[0-9a-f]{37}$/);
    expect(generateKey()).not.toBe(key);
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyMatches(key, hashKey(key))).toBe(true);
    expect(keyMatches(`${key}x`, hashKey(key))).toBe(false);
  });

  it('tells well-formed headers from malformed ones', () => {
    expect(isValidEmail('admin@example.com')).toBe(true);
    expect(isValidEmail('no-at-sign')).toBe(false);
    expect(isValidEmail('a b@example.com')).toBe(false);
    expect(isValidKey('0123456789abcdef0123456789abcdef01234')).toBe(true);
    expect(isValidKey('has space')).toBe(false);
    expect(isValidKey('')).toBe(false);
  });
});
