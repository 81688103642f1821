import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CRC_SPECS, CrcCombiner } from './crc-combine.js';
import { runningChecksum, type ChecksumAlgorithm } from './checksum.js';

function crcOf(algorithm: ChecksumAlgorithm, bytes: Uint8Array): bigint {
  const sum = runningChecksum(algorithm);
  sum.update(bytes);
  return BigInt(`0x${Buffer.from(sum.base64(), 'base64').toString('hex')}`);
}

describe('combining CRCs', () => {
  for (const algorithm of ['crc32', 'crc32c', 'crc64nvme'] as const) {
    it(`${algorithm}: the combination of the pieces' CRCs is the CRC of the whole, for any split`, () => {
      const whole = randomBytes(3000);
      for (const cuts of [[1000, 2000], [0, 1, 2999], [1500], [7, 8, 9, 2000, 2999]]) {
        const combiner = new CrcCombiner(CRC_SPECS[algorithm]);
        let from = 0;
        for (const cut of [...cuts, whole.length]) {
          const piece = whole.subarray(from, cut);
          combiner.add(crcOf(algorithm, piece), piece.length);
          from = cut;
        }
        expect(combiner.value().toString(16)).toBe(crcOf(algorithm, whole).toString(16));
      }
    });
  }

  it('equal-sized pieces reuse one shift; nothing combined is the CRC of no bytes', () => {
    const pieces = Array.from({ length: 20 }, () => randomBytes(512));
    const combiner = new CrcCombiner(CRC_SPECS.crc64nvme);
    for (const p of pieces) combiner.add(crcOf('crc64nvme', p), p.length);
    expect(combiner.value()).toBe(crcOf('crc64nvme', Buffer.concat(pieces)));
    expect(new CrcCombiner(CRC_SPECS.crc32).value()).toBe(crcOf('crc32', new Uint8Array(0)));
  });
});
