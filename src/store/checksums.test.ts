import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Checksums, Digester, parseHashOptions } from './checksums.js';

describe('parseHashOptions', () => {
  it('accepts hex (any case) or bytes of the right length', () => {
    const hex = 'A'.repeat(64);
    expect(parseHashOptions({ sha256: hex })).toMatchObject({ field: 'sha256', hex: 'a'.repeat(64) });
    expect(parseHashOptions({ md5: new Uint8Array(16).fill(255) })).toMatchObject({ field: 'md5', hex: 'ff'.repeat(16) });
    expect(parseHashOptions({})).toBeUndefined();
  });
  it('throws the runtime texts', () => {
    expect(() => parseHashOptions({ md5: 'abc' })).toThrow(new TypeError('MD5 is 32 hex characters, not 3'));
    expect(() => parseHashOptions({ sha1: new ArrayBuffer(15) })).toThrow(new TypeError('SHA-1 is 20 bytes, not 15'));
    expect(() => parseHashOptions({ sha512: 'z'.repeat(128) })).toThrow(new TypeError("Provided SHA-512 wasn't a valid hex string"));
    expect(() => parseHashOptions({ md5: 'a'.repeat(32), sha1: 'a'.repeat(40) })).toThrow(new TypeError('You cannot specify multiple hashing algorithms.'));
    expect(() => parseHashOptions({ md5: 5 })).toThrow(
      "Incorrect type for the 'md5' field on 'PutOptions': the provided value is not of type 'JsBufferSource or string'.",
    );
  });
});

describe('Digester', () => {
  it('always computes md5 and verifies the expected hash with a three-line BadDigest', () => {
    const d = new Digester(parseHashOptions({ sha1: '0'.repeat(40) }));
    d.update(new TextEncoder().encode('hi'));
    const actual = createHash('sha1').update('hi').digest('hex');
    expect(() => d.finish()).toThrow(
      `The SHA-1 checksum you specified did not match what we received.\nYou provided a SHA-1 checksum with value: ${'0'.repeat(40)}\nActual SHA-1 was: ${actual}`,
    );
    const ok = new Digester(parseHashOptions({ sha1: actual }));
    ok.update(new TextEncoder().encode('hi'));
    expect(ok.finish()).toEqual({ md5: createHash('md5').update('hi').digest('hex'), sha1: actual });
  });
});

describe('Checksums', () => {
  it('returns cached ArrayBuffers and hex toJSON with only present keys', () => {
    const c = new Checksums({ md5: '00ff'.repeat(8), sha256: 'ab'.repeat(32) });
    expect(c.md5).toBeInstanceOf(ArrayBuffer);
    expect(c.md5).toBe(c.md5);
    expect(new Uint8Array(c.md5!)[1]).toBe(255);
    expect(c.sha1).toBeUndefined();
    expect(c.toJSON()).toEqual({ md5: '00ff'.repeat(8), sha256: 'ab'.repeat(32) });
    expect(JSON.stringify({ c })).toBe(`{"c":{"md5":"${'00ff'.repeat(8)}","sha256":"${'ab'.repeat(32)}"}}`);
  });
});
