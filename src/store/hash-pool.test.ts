import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { HashPool, SLOT_BYTES } from './hash-pool.js';
import { Digester, parseHashOptions } from './checksums.js';

const hex = (alg: string, ...pieces: Uint8Array[]): string => {
  const h = createHash(alg);
  for (const p of pieces) h.update(p);
  return h.digest('hex');
};

describe('hash pool', () => {
  it('digests pieces of every size in order, equal to hashing here', async () => {
    const pool = new HashPool(1);
    const sizes = [1, SLOT_BYTES, 1024 * 1024 + 7, 0, 65_536, SLOT_BYTES - 1, 2, SLOT_BYTES - 5, 17];
    const pieces = sizes.map((n) => randomBytes(n));
    const expected = [hex('md5', ...pieces), hex('sha256', ...pieces)];
    const job = pool.open(['md5', 'sha256']);
    for (const p of pieces) {
      await job.update(p);
      p.fill(0); // the job copied it: reusing the buffer must not change the digest
    }
    const [md5, sha256] = await job.digest();
    job.close();
    expect([md5, sha256]).toEqual(expected);
  });

  it('matches node:crypto over many slots, for concurrent jobs on shared workers', async () => {
    const pool = new HashPool(2);
    const run = async (seed: number): Promise<[string, string]> => {
      const pieces = Array.from({ length: 12 }, (_, i) => randomBytes(300_000 + ((seed * 7919 + i * 104_729) % 900_000)));
      const job = pool.open(['md5', 'sha1']);
      for (const p of pieces) await job.update(p);
      const [md5, sha1] = await job.digest();
      job.close();
      expect(md5).toBe(hex('md5', ...pieces));
      expect(sha1).toBe(hex('sha1', ...pieces));
      return [md5!, sha1!];
    };
    const results = await Promise.all([1, 2, 3, 4, 5].map(run));
    expect(new Set(results.map((r) => r[0])).size).toBe(5);
  });

  it('refuses a piece larger than a slot, and an abandoned job leaves the pool usable', async () => {
    const pool = new HashPool(1);
    const job = pool.open(['md5']);
    await expect(job.update(new Uint8Array(SLOT_BYTES + 1))).rejects.toThrow(/larger than a slot/);
    await job.update(randomBytes(1000));
    job.close();
    job.close();
    const next = pool.open(['md5']);
    const data = randomBytes(5000);
    await next.update(data);
    expect(await next.digest()).toEqual([hex('md5', data)]);
    next.close();
  });

  it('fails the job with a clear error for an unknown algorithm', async () => {
    const pool = new HashPool(1);
    const job = pool.open(['no-such-hash']);
    await job.update(randomBytes(10));
    await expect(job.digest()).rejects.toThrow(/hashing failed/);
    job.close();
  });
});

describe('Digester.adopt', () => {
  it('uses digests computed elsewhere and still verifies the expected one', () => {
    const data = Buffer.from('hello');
    const ok = new Digester(parseHashOptions({ sha256: hex('sha256', data) }));
    expect(ok.algorithms).toEqual(['md5', 'sha256']);
    ok.adopt([hex('md5', data), hex('sha256', data)]);
    expect(ok.finish()).toEqual({ md5: hex('md5', data), sha256: hex('sha256', data) });

    const bad = new Digester(parseHashOptions({ md5: hex('md5', Buffer.from('other')) }));
    expect(bad.algorithms).toEqual(['md5']);
    bad.adopt([hex('md5', data)]);
    expect(() => bad.finish()).toThrow(/did not match/);
    expect(() => new Digester(undefined).adopt(['a', 'b'])).toThrow(/digest count/);
  });
});
