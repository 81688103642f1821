/**
 * Combining CRCs: the CRC of `A || B` from `crc(A)`, `crc(B)` and the length of `B`, without the bytes (zlib's
 * `crc32_combine`, generalised to any reflected CRC whose initial value and final XOR are all ones, which holds
 * for CRC-32, CRC-32C and CRC-64/NVME). S3 makes a multipart object's full-object CRC this way from its parts'.
 *
 * In the reflected representation a polynomial's x^0 term is the top bit. `crc(A || B) = crc(A) * x^(8*len(B))
 * mod P xor crc(B)`: the all-ones initial value and final XOR cancel out (linearity), so the stored CRC values
 * combine directly. BigInt keeps one implementation for 32 and 64 bits; the powers of x are cached per length.
 */

/** A reflected CRC: its width in bits and reflected polynomial. */
export interface CrcSpec {
  width: 32 | 64;
  poly: bigint;
}

/** CRC-32 (ISO-HDLC), CRC-32C (Castagnoli) and CRC-64/NVME. */
export const CRC_SPECS = {
  crc32: { width: 32, poly: 0xedb88320n },
  crc32c: { width: 32, poly: 0x82f63b78n },
  crc64nvme: { width: 64, poly: 0x9a6c9329ac4bc9b5n },
} as const satisfies Record<string, CrcSpec>;

/** a * b mod P, both in reflected form. */
function multiply(spec: CrcSpec, a: bigint, b: bigint): bigint {
  const top = 1n << BigInt(spec.width - 1);
  let m = top;
  let p = 0n;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1n)) === 0n) break;
    }
    m >>= 1n;
    b = b & 1n ? (b >> 1n) ^ spec.poly : b >> 1n;
  }
  return p;
}

/** x^(2^k) mod P for k = 0..63 (x^(2^k) for k >= 64 repeats: bytes never exceed 2^61). */
const SQUARES = new WeakMap<CrcSpec, bigint[]>();
function squares(spec: CrcSpec): bigint[] {
  let table = SQUARES.get(spec);
  if (!table) {
    table = [1n << BigInt(spec.width - 2)]; // x^1
    for (let k = 1; k < 64; k++) table.push(multiply(spec, table[k - 1]!, table[k - 1]!));
    SQUARES.set(spec, table);
  }
  return table;
}

/** x^(8 * bytes) mod P. */
function shiftFor(spec: CrcSpec, bytes: number): bigint {
  const table = squares(spec);
  let p = 1n << BigInt(spec.width - 1); // x^0
  let n = BigInt(bytes) * 8n;
  for (let k = 0; n > 0n; k++, n >>= 1n) if (n & 1n) p = multiply(spec, table[k]!, p);
  return p;
}

/** A running combination: feed each piece's CRC and length in order, then read the CRC of the whole. */
export class CrcCombiner {
  #crc: bigint | undefined;
  readonly #shifts = new Map<number, bigint>();

  constructor(private readonly spec: CrcSpec) {}

  /** Appends a piece of `length` bytes whose CRC is `crc`. */
  add(crc: bigint, length: number): void {
    if (this.#crc === undefined) {
      this.#crc = crc;
      return;
    }
    let shift = this.#shifts.get(length);
    if (shift === undefined) this.#shifts.set(length, (shift = shiftFor(this.spec, length)));
    this.#crc = multiply(this.spec, shift, this.#crc) ^ crc;
  }

  /** The CRC of everything added (that of no bytes, 0, when nothing was). */
  value(): bigint {
    return this.#crc ?? 0n;
  }
}
