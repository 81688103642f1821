/**
 * Checksums: the hash options of `put` (reference §2.2 messages, §5.2 BadDigest) and the `StoreChecksums`
 * value (ArrayBuffer getters, `toJSON()` in lowercase hex).
 */
import { createHash, type Hash } from 'node:crypto';
import { fail, StoreInvariantError } from './errors.js';
import type { StoreChecksums, StoreStringChecksums } from './types.js';

/** The supported algorithms, in the order the runtime checks them. */
export const HASH_ALGORITHMS = [
  { field: 'md5', bytes: 16, label: 'MD5', node: 'md5' },
  { field: 'sha1', bytes: 20, label: 'SHA-1', node: 'sha1' },
  { field: 'sha256', bytes: 32, label: 'SHA-256', node: 'sha256' },
  { field: 'sha384', bytes: 48, label: 'SHA-384', node: 'sha384' },
  { field: 'sha512', bytes: 64, label: 'SHA-512', node: 'sha512' },
] as const;

/** A checksum field name. */
export type HashField = (typeof HASH_ALGORITHMS)[number]['field'];

/** The one expected digest of a put. */
export interface ExpectedHash {
  field: HashField;
  label: string;
  node: string;
  hex: string;
}

function bytesOf(value: ArrayBuffer | ArrayBufferView): Uint8Array {
  return value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/** Validates the md5/sha* options: at most one, of the right length and form. */
export function parseHashOptions(options: Record<string, unknown>): ExpectedHash | undefined {
  let found: ExpectedHash | undefined;
  for (const alg of HASH_ALGORITHMS) {
    const value = options[alg.field];
    if (value === undefined) continue;
    if (found) throw new TypeError('You cannot specify multiple hashing algorithms.');
    let hex: string;
    if (typeof value === 'string') {
      if (value.length !== alg.bytes * 2) throw new TypeError(`${alg.label} is ${alg.bytes * 2} hex characters, not ${value.length}`);
      if (!/^[0-9a-fA-F]*$/.test(value)) throw new TypeError(`Provided ${alg.label} wasn't a valid hex string`);
      hex = value.toLowerCase();
    } else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      const bytes = bytesOf(value);
      if (bytes.byteLength !== alg.bytes) throw new TypeError(`${alg.label} is ${alg.bytes} bytes, not ${bytes.byteLength}`);
      hex = Buffer.from(bytes).toString('hex');
    } else {
      throw new TypeError(`Incorrect type for the '${alg.field}' field on 'PutOptions': the provided value is not of type 'JsBufferSource or string'.`);
    }
    found = { field: alg.field, label: alg.label, node: alg.node, hex };
  }
  return found;
}

/** Throws BadDigest (10037) when the received digest differs from the expected one. */
export function verifyHash(expected: ExpectedHash, actualHex: string): void {
  if (expected.hex === actualHex) return;
  fail(
    'BadDigest',
    `The ${expected.label} checksum you specified did not match what we received.\n` +
      `You provided a ${expected.label} checksum with value: ${expected.hex}\n` +
      `Actual ${expected.label} was: ${actualHex}`,
  );
}

/** Digests computed while a body streams through, here (`update`) or elsewhere (`algorithms` then `adopt`). */
export class Digester {
  private readonly md5: Hash = createHash('md5');
  private readonly extra: Hash | undefined;
  private adopted: string[] | undefined;

  constructor(readonly expected: ExpectedHash | undefined) {
    this.extra = expected && expected.field !== 'md5' ? createHash(expected.node) : undefined;
  }

  /** The Node algorithm names to compute, MD5 first, for a digest computed outside this object. */
  get algorithms(): string[] {
    return this.extra ? ['md5', this.expected!.node] : ['md5'];
  }

  /** Feeds bytes. */
  update(chunk: Uint8Array): void {
    this.md5.update(chunk);
    this.extra?.update(chunk);
  }

  /** Takes digests computed elsewhere over the whole body (hex, in the order of `algorithms`) instead of `update`. */
  adopt(hex: readonly string[]): void {
    if (hex.length !== this.algorithms.length) throw new StoreInvariantError('digest count does not match the algorithms');
    this.adopted = [...hex];
  }

  /** Finishes, verifies the expected digest, and returns the checksums to store (hex). */
  finish(): Record<string, string> {
    const md5 = this.adopted ? this.adopted[0]! : this.md5.digest('hex');
    const out: Record<string, string> = { md5 };
    if (this.expected) {
      const actual = this.extra ? (this.adopted ? this.adopted[1]! : this.extra.digest('hex')) : md5;
      verifyHash(this.expected, actual);
      out[this.expected.field] = actual;
    }
    return out;
  }
}

/** Algorithms of checksums the S3 edge stores with an object (`StorePutOptions.extraChecksums`). */
export const EXTRA_CHECKSUMS = new Set(['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256']);

/**
 * Every stored checksum of a `checksums` value, hex by algorithm; a multipart object's composite checksum is
 * `<hex>-<parts>` (the binding shows md5 and whole-object sha* digests only).
 */
const STORED = new WeakMap<object, Readonly<Record<string, string>>>();

/** All checksums stored with an object (lowercase hex by algorithm), for the S3 edge. */
export function storedChecksums(checksums: StoreChecksums): Readonly<Record<string, string>> {
  return STORED.get(checksums) ?? {};
}

/** The `checksums` value of an object. */
export class Checksums implements StoreChecksums {
  readonly #hex: Record<string, string>;
  readonly #cache = new Map<string, ArrayBuffer>();

  constructor(hex: Record<string, string>) {
    this.#hex = hex;
    STORED.set(this, hex);
  }

  #whole(field: HashField): string | undefined {
    return wholeDigest(this.#hex, field);
  }

  #get(field: HashField): ArrayBuffer | undefined {
    const hex = this.#whole(field);
    if (hex === undefined) return undefined;
    let buf = this.#cache.get(field);
    if (!buf) {
      const bytes = Buffer.from(hex, 'hex');
      buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      this.#cache.set(field, buf);
    }
    return buf;
  }

  get md5(): ArrayBuffer | undefined {
    return this.#get('md5');
  }
  get sha1(): ArrayBuffer | undefined {
    return this.#get('sha1');
  }
  get sha256(): ArrayBuffer | undefined {
    return this.#get('sha256');
  }
  get sha384(): ArrayBuffer | undefined {
    return this.#get('sha384');
  }
  get sha512(): ArrayBuffer | undefined {
    return this.#get('sha512');
  }

  /** Present checksums in lowercase hex. */
  toJSON(): StoreStringChecksums {
    return wholeChecksums(this.#hex);
  }
}

/** A digest of the whole object; a composite S3 checksum of a multipart object (`<hex>-<parts>`) is not one. */
function wholeDigest(hex: Record<string, string>, field: HashField): string | undefined {
  const value = hex[field];
  return value !== undefined && /^[0-9a-f]*$/.test(value) ? value : undefined;
}

/** The checksums the binding shows of stored ones (`toJSON()`'s value): whole-object digests in lowercase hex, in the runtime's order. */
export function wholeChecksums(hex: Record<string, string>): StoreStringChecksums {
  const out: StoreStringChecksums = {};
  for (const { field } of HASH_ALGORITHMS) {
    const value = wholeDigest(hex, field);
    if (value !== undefined) out[field] = value;
  }
  return out;
}
