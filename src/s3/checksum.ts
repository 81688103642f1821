/**
 * The flexible checksums S3 clients send (`x-amz-checksum-<algorithm>`, as a header or an aws-chunked
 * trailer, base64 of the big-endian digest): CRC-32, CRC-32C, CRC-64/NVME, SHA-1 and SHA-256, computed while the
 * body streams.
 */
import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Crc64Nvme } from './crc64nvme.js';

/** Algorithms this edge verifies. */
export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
/** One of {@link CHECKSUM_ALGORITHMS}. */
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

const CRC32C_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32C (Castagnoli) of `bytes`, continuing from `previous`. */
export function crc32c(bytes: Uint8Array, previous = 0): number {
  let c = ~previous;
  for (let i = 0; i < bytes.length; i++) c = CRC32C_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** A running checksum: feed pieces, then read the base64 digest. */
export interface RunningChecksum {
  update(piece: Uint8Array): void;
  base64(): string;
}

function crcChecksum(step: (bytes: Uint8Array, previous: number) => number): RunningChecksum {
  let value = 0;
  return {
    update(piece) { value = step(piece, value); },
    base64() {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(value >>> 0);
      return out.toString('base64');
    },
  };
}

function hashChecksum(hash: Hash): RunningChecksum {
  return { update: (piece) => void hash.update(piece), base64: () => hash.digest('base64') };
}

/** A running checksum of the named algorithm. */
export function runningChecksum(algorithm: ChecksumAlgorithm): RunningChecksum {
  switch (algorithm) {
    case 'crc32': return crcChecksum((b, p) => crc32(b, p));
    case 'crc32c': return crcChecksum(crc32c);
    case 'crc64nvme': {
      const crc = new Crc64Nvme();
      return { update: (piece) => crc.update(piece), base64: () => crc.digest().toString('base64') };
    }
    case 'sha1': return hashChecksum(createHash('sha1'));
    case 'sha256': return hashChecksum(createHash('sha256'));
  }
}

/** The algorithm named by `x-amz-checksum-<name>` / `x-amz-sdk-checksum-algorithm` values, or undefined. */
export function checksumAlgorithm(name: string): ChecksumAlgorithm | undefined {
  const lower = name.toLowerCase().replace(/^x-amz-checksum-/, '');
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(lower) ? (lower as ChecksumAlgorithm) : undefined;
}
