import { describe, expect, it } from 'vitest';
import { Crc64Nvme } from './crc64nvme.js';

function crc(input: Uint8Array | string, split = 0): string {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  const c = new Crc64Nvme();
  if (split > 0) {
    c.update(bytes.subarray(0, split));
    c.update(bytes.subarray(split));
  } else {
    c.update(bytes);
  }
  return c.digest().toString('hex');
}

describe('CRC-64/NVME', () => {
  it('matches the catalogue check value and known vectors', () => {
    // CRC catalogue check value (reveng: CRC-64/NVME).
    expect(crc('123456789')).toBe('ae8b14860a799888');
    expect(crc('')).toBe('0000000000000000');
  });

  it('matches published vectors (NVMe NVM Command Set test cases, aws-c-checksums, aws-c-s3)', () => {
    expect(crc(new Uint8Array(32))).toBe('cf3473434d4ecf3b');
    expect(crc(new Uint8Array(4096))).toBe('6482d367eb22b64e');
    expect(crc(new Uint8Array(4096).fill(0xff))).toBe('c0ddba7302eca3ac');
    expect(crc('aaaaaaaaaa')).toBe('0c1a80036d65c555');
    expect(Buffer.from(crc('Hello, World!\n'), 'hex').toString('base64')).toBe('SoXXbx67KpE=');
  });

  it('is the same however the input is split', () => {
    const data = Buffer.from('The quick brown fox jumps over the lazy dog');
    for (let i = 1; i < data.length; i++) expect(crc(data, i)).toBe(crc(data));
  });
});
