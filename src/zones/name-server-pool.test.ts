import { describe, expect, it } from 'vitest';
import { pairAt, pairCount } from './name-server-pool.js';
import { DEFAULT_POOL_LABELS, nameServerDomain, poolNames } from '../config/name-server-pool.js';

const INSTANCE = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];

describe('name server pool', () => {
  it('puts labels under the domain of the instance name servers', () => {
    expect(nameServerDomain(INSTANCE)).toBe('stratus.invalid');
    expect(nameServerDomain(['ns1.ns.operator.test'])).toBe('ns.operator.test');
    expect(poolNames(['Ada', ' bob '], INSTANCE)).toEqual(['ada.stratus.invalid', 'bob.stratus.invalid']);
    expect(poolNames('off', INSTANCE)).toEqual([]);
    expect(poolNames(DEFAULT_POOL_LABELS, INSTANCE)).toHaveLength(24);
  });

  it('refuses bad lists with a message naming the flag', () => {
    expect(poolNames(['ada'], INSTANCE)).toMatch(/at least two labels/);
    expect(poolNames(['ada', 'ada'], INSTANCE)).toMatch(/twice/);
    expect(poolNames(['ada', 'b.c'], INSTANCE)).toMatch(/DNS labels.*"b\.c"/);
    expect(poolNames(['ada', 'ns1'], INSTANCE)).toMatch(/ns1\.stratus\.invalid is one of --nameservers/);
  });

  it('gives every pair once before any twice, deterministically', () => {
    const pool = ['a', 'b', 'c', 'd'];
    expect(pairCount(pool)).toBe(6);
    const pairs = Array.from({ length: 6 }, (_, i) => pairAt(pool, i).join('/'));
    expect(pairs).toEqual(['a/b', 'b/c', 'c/d', 'a/c', 'b/d', 'a/d']);
    expect(pairAt(pool, 6)).toEqual(['a', 'b']);
    const names = poolNames(DEFAULT_POOL_LABELS, INSTANCE) as string[];
    expect(new Set(Array.from({ length: pairCount(names) }, (_, i) => pairAt(names, i).join())).size).toBe(276);
    expect(pairAt(names, 0)).toEqual(['ada.stratus.invalid', 'bob.stratus.invalid']);
  });
});
