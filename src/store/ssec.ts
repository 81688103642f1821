/**
 * SSE-C: customer keys (reference §1.25 validation) and encryption at rest with AES-256-CTR. Each object (or
 * multipart part) gets a random 16-byte initial counter block; CTR is seekable, so a range is decrypted by
 * starting the counter at `offset / 16` and dropping `offset % 16` keystream bytes. The stored MD5 of the key
 * identifies the key: a read must present a key with the same MD5.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { fail } from './errors.js';

/** A validated customer key. */
export interface SsecKeyInfo {
  key: Buffer;
  /** Lowercase hex MD5 of the key bytes (the object's `ssecKeyMd5`). */
  md5: string;
}

/** Validates `ssecKey`; throws the runtime's plain Errors. */
export function parseSsecKey(value: unknown): SsecKeyInfo | undefined {
  if (value === undefined) return undefined;
  let key: Buffer;
  if (typeof value === 'string') {
    if (!/^[0-9a-f]+$/.test(value)) throw new Error('SSE-C Key has invalid format');
    if (value.length !== 64) throw new Error('SSE-C Key must be 32 bytes in length');
    key = Buffer.from(value, 'hex');
  } else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    key =
      value instanceof ArrayBuffer ? Buffer.from(new Uint8Array(value)) : Buffer.from(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    if (key.byteLength !== 32) throw new Error('SSE-C Key must be 32 bytes in length');
  } else {
    throw new TypeError("Incorrect type for the 'ssecKey' field on 'GetOptions': the provided value is not of type 'ArrayBuffer or string'.");
  }
  return { key, md5: createHash('md5').update(key).digest('hex') };
}

/** A fresh initial counter block, hex. */
export function newIv(): string {
  return randomBytes(16).toString('hex');
}

function counterAt(ivHex: string, offset: number): Buffer {
  const iv = Buffer.from(ivHex, 'hex');
  let carry = BigInt(Math.floor(offset / 16));
  for (let i = 15; i >= 0 && carry > 0n; i--) {
    const sum = BigInt(iv[i]!) + (carry & 0xffn);
    iv[i] = Number(sum & 0xffn);
    carry = (carry >> 8n) + (sum >> 8n);
  }
  return iv;
}

/** A cipher producing the encrypted (or, symmetrically, decrypted) bytes starting at `offset`. */
export function ctrAt(key: Buffer, ivHex: string, offset: number): ReturnType<typeof createCipheriv> {
  const cipher = createCipheriv('aes-256-ctr', key, counterAt(ivHex, offset));
  const skip = offset % 16;
  if (skip) cipher.update(Buffer.alloc(skip));
  return cipher;
}

/** Decipher for reading from `offset` (CTR decryption is the same operation). */
export function ctrDecipherAt(key: Buffer, ivHex: string, offset: number): ReturnType<typeof createDecipheriv> {
  const decipher = createDecipheriv('aes-256-ctr', key, counterAt(ivHex, offset));
  const skip = offset % 16;
  if (skip) decipher.update(Buffer.alloc(skip));
  return decipher;
}

/** Checks the presented key against the object's: missing, extra or different keys are refused. */
export function checkReadKey(objectKeyMd5: string | null | undefined, given: SsecKeyInfo | undefined): void {
  if (objectKeyMd5 && !given) fail('InvalidArgument', 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.');
  if (!objectKeyMd5 && given) fail('InvalidArgument', 'The encryption parameters are not applicable to this object.');
  if (objectKeyMd5 && given && objectKeyMd5 !== given.md5) fail('InvalidArgument', 'The provided encryption key does not match the key the object was stored with.');
}
