/**
 * Property: whatever name a second account tries (random labels under the first account's zones and
 * elsewhere, Public Suffix List entries, internationalized names in Unicode and Punycode, trailing dots,
 * mixed case), no zone of it is ever active at or below a name of the first account's active zones, no
 * public suffix is ever added, and the DNS server never answers a name of the first account from the second
 * account's data. Names are generated from a fixed seed (set STRATUS_PROPERTY_SEED to explore others).
 */
import type Cloudflare from 'cloudflare';
import { domainToASCII } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig } from '../dns-server/dig.js';
import { registrableDomain } from '../../src/zones/name-policy.js';

const SEED = Number(process.env.STRATUS_PROPERTY_SEED ?? 20261125);
const A_ZONES = ['owner-a.com', 'owner-a.co.uk', 'bücher.example', 'owner-a.github.io', '7.0.192.in-addr.arpa'];
const SUFFIXES = ['com', 'co.uk', 'github.io', 'in-addr.arpa', 'ip6.arpa', 'blogspot.com', 's3.amazonaws.com', '公司.cn', 'xn--55qx5d.cn', 'uk', 'arpa'];
const MARK = 'b-owned';

/** mulberry32: a small deterministic generator. */
function rng(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(count: number): string[] {
  const next = rng(SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const label = () => {
    const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let s = pick([...'abcdefghijklmnopqrstuvwxyz']);
    for (let i = Math.floor(next() * 8); i > 0; i--) s += pick([...chars, '-']);
    return s.replace(/-+$/, '') || 'x';
  };
  const decorate = (name: string) => {
    const cased = [...name].map((ch) => (next() < 0.3 ? ch.toUpperCase() : ch)).join('');
    return next() < 0.3 ? `${cased}.` : cased;
  };
  const out: string[] = [];
  while (out.length < count) {
    const kind = next();
    let name: string;
    if (kind < 0.45) name = [...Array.from({ length: 1 + Math.floor(next() * 3) }, label), pick(A_ZONES)].join('.');
    else if (kind < 0.6) name = pick(A_ZONES);
    else if (kind < 0.75) name = pick(SUFFIXES);
    else if (kind < 0.85) name = `${label()}.${pick(['bücher.example', 'owner-a.com', 'xn--bcher-kva.example', 'müller.owner-a.com'])}`;
    else name = `${label()}.${pick(['net', 'org', 'test', 'co.uk', 'github.io'])}`;
    out.push(decorate(name));
  }
  return out;
}

/** The name as Stratus stores it (lowercase ASCII, no trailing dot). */
function stored(name: string): string {
  return domainToASCII(name.replace(/\.$/, '')).toLowerCase();
}

const isAtOrBelow = (name: string, base: string) => name === base || name.endsWith(`.${base}`);

let server: TestServer;
let a: Cloudflare;
let b: Cloudflare;
let bAccount: string;
const aNames = A_ZONES.map(stored);

beforeAll(async () => {
  server = await startTestServer();
  a = server.sdk();
  const aAccount = await accountId(server);
  for (const name of A_ZONES) {
    const zone = await a.zones.create({ account: { id: aAccount }, name, type: 'full' });
    expect(zone.status).toBe('active');
    await a.dns.records.create({ zone_id: zone.id, type: 'TXT', name: '@', content: 'a-owned', ttl: 300 } as never);
  }
  const other = await addUser(server, 'property-b@example.org');
  b = other.sdk();
  bAccount = other.accountId;
});

afterAll(async () => {
  await server?.stop();
});

describe('no zone is ever active over another account\'s name', () => {
  it(`holds for generated names (seed ${SEED})`, async () => {
    const tried = generate(80);
    const outcomes = new Map<string, string>();
    for (const name of tried) {
      try {
        const zone = await b.zones.create({ account: { id: bAccount }, name, type: 'full' });
        outcomes.set(name, zone.status as string);
        await b.dns.records.create({ zone_id: zone.id, type: 'TXT', name: '@', content: MARK, ttl: 300 } as never);
      } catch (err) {
        const status = (err as { status?: number }).status;
        expect(status, `${name}: ${String(err)}`).toBe(400);
        outcomes.set(name, `error ${(err as { errors: { code: number }[] }).errors[0]!.code}`);
      }
    }
    // Both kinds of outcome occurred, so the property was exercised on both sides.
    expect([...outcomes.values()].filter((o) => o === 'active').length).toBeGreaterThan(3);
    expect([...outcomes.values()].filter((o) => o === 'pending').length).toBeGreaterThan(3);

    const bZones: { name: string; status: string }[] = [];
    for await (const z of b.zones.list({ per_page: 50 })) bZones.push({ name: z.name, status: z.status as string });
    for (const z of bZones) {
      if (z.status === 'active') expect(aNames.some((n) => isAtOrBelow(z.name, n)), z.name).toBe(false);
      expect(registrableDomain(z.name), z.name).not.toBeNull();
    }
    for await (const z of a.zones.list()) expect(z.status, z.name).toBe('active');

    // Over DNS: a name of A's never answers B's data; B's own active zones do answer it.
    for (const name of new Set(tried.map(stored))) {
      if (!bZones.some((z) => z.name === name)) continue;
      const res = await dig(server.dnsPort!, name, 'TXT');
      const ownedByA = aNames.some((n) => isAtOrBelow(name, n));
      if (ownedByA) expect(res.raw, name).not.toContain(MARK);
      else if (bZones.find((z) => z.name === name)!.status === 'active') expect(res.answer, name).toContain(`${name}. 300 IN TXT "${MARK}"`);
    }
  });
});
