import { describe, expect, it } from 'vitest';
import { createCipheriv, randomBytes } from 'node:crypto';
import { checkReadKey, ctrAt, ctrDecipherAt, newIv, parseSsecKey } from './ssec.js';

describe('parseSsecKey', () => {
  it('validates format then length with plain Errors', () => {
    const fmt = () => parseSsecKey('ABCD');
    expect(fmt).toThrow('SSE-C Key has invalid format');
    try {
      fmt();
    } catch (e) {
      expect((e as Error).constructor).toBe(Error);
    }
    expect(() => parseSsecKey('')).toThrow('SSE-C Key has invalid format');
    expect(() => parseSsecKey('ab')).toThrow('SSE-C Key must be 32 bytes in length');
    expect(() => parseSsecKey(new Uint8Array(31))).toThrow('SSE-C Key must be 32 bytes in length');
    const k = parseSsecKey('00'.repeat(32))!;
    expect(k.key.byteLength).toBe(32);
    expect(k.md5).toMatch(/^[0-9a-f]{32}$/);
    expect(parseSsecKey(new ArrayBuffer(32))!.md5).toBe(k.md5);
  });
});

describe('AES-256-CTR at any offset', () => {
  it('decrypts any range of a ciphertext, including across counter carries', () => {
    const key = randomBytes(32);
    const iv = 'ff'.repeat(15) + 'fe'; // forces a carry through every byte
    const plain = randomBytes(1000);
    const enc = createCipheriv('aes-256-ctr', key, Buffer.from(iv, 'hex')).update(plain);
    expect(ctrAt(key, iv, 0).update(plain).equals(enc)).toBe(true);
    for (const [off, len] of [[0, 1000], [1, 5], [15, 2], [16, 16], [33, 500], [999, 1]] as const) {
      const out = ctrDecipherAt(key, iv, off).update(enc.subarray(off, off + len));
      expect(out.equals(plain.subarray(off, off + len))).toBe(true);
    }
    expect(newIv()).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('checkReadKey', () => {
  it('refuses a missing, unexpected or different key', () => {
    const k = parseSsecKey('11'.repeat(32))!;
    const other = parseSsecKey('22'.repeat(32))!;
    expect(() => checkReadKey(k.md5, undefined)).toThrow(/Server Side Encryption/);
    expect(() => checkReadKey(null, k)).toThrow(/not applicable/);
    expect(() => checkReadKey(k.md5, other)).toThrow(/does not match/);
    expect(() => checkReadKey(k.md5, k)).not.toThrow();
  });
});
