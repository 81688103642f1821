/** Deterministic content for the crash tests: the AES-256-CTR keystream of a seed, so a verifier can recompute any value. */
import { createCipheriv, createHash } from 'node:crypto';

/** `size` bytes determined by `seed`, starting at `offset` of that seed's stream. */
export function content(seed: string, size: number, offset = 0): Buffer {
  const key = createHash('sha256').update(seed).digest();
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(Math.floor(offset / 16), 12);
  const c = createCipheriv('aes-256-ctr', key, iv);
  const skip = offset % 16;
  if (skip) c.update(Buffer.alloc(skip));
  return c.update(Buffer.alloc(size));
}
