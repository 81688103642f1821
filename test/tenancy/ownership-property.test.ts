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

/**
 * Property over generated orders of creates, delegations (NS records naming one account's pair), removals of
 * delegations, deletes and activation checks by three accounts over a small tree of names: after every step
 * at most one zone of a name is active; every active zone below another account's active zone is delegated
 * by it to exactly its own pair; no step but a removal of a delegation or a delete ever deactivates a zone
 * (a later parent never displaces an active zone, a delegation to one pair never activates another account's
 * zone). At the end, DNS answers each name from the active zone that owns it, never from another.
 */
describe('generated create/delegate orders keep one owner per name', () => {
  const NAMES = ['order.test', 'a.order.test', 'b.a.order.test', 'c.order.test', 'd.c.order.test'];
  type Who = { sdk: Cloudflare; account: string; pair: string[] };
  type Zone = { id: string; name: string; owner: number; status: string };

  it(`holds for generated orders (seed ${SEED})`, async () => {
    const next = rng(SEED + 1);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const who: Who[] = [];
    for (let i = 0; i < 3; i++) {
      const user = await addUser(server, `order-${i}@example.org`);
      const sdk = user.sdk();
      const pair = (await sdk.zones.create({ account: { id: user.accountId }, name: `pair-${i}.elsewhere.test`, type: 'full' })).name_servers;
      who.push({ sdk, account: user.accountId, pair });
    }
    expect(new Set(who.map((w) => w.pair.join())).size).toBe(3);
    const zones: Zone[] = [];
    const refresh = async () => {
      for (const z of zones) z.status = (await who[z.owner]!.sdk.zones.get({ zone_id: z.id })).status as string;
    };
    const nsAt = async (z: Zone, name: string) => (await who[z.owner]!.sdk.dns.records.list({ zone_id: z.id, type: 'NS', name: { exact: name } } as never)).result;
    const check = async (step: string, before: Map<string, string>, mayDeactivate: boolean) => {
      await refresh();
      const active = zones.filter((z) => z.status === 'active');
      expect(new Set(active.map((z) => z.name)).size, step).toBe(active.length);
      for (const z of active) {
        const parent = NAMES.filter((n) => z.name.endsWith(`.${n}`)).sort((x, y) => y.length - x.length)
          .map((n) => active.find((p) => p.name === n)).find((p) => p !== undefined);
        if (parent && parent.owner !== z.owner) {
          const targets = (await nsAt(parent, z.name)).map((r) => r.content).sort();
          expect(targets, `${step}: ${z.name} of ${z.owner} below ${parent.name} of ${parent.owner}`).toEqual([...who[z.owner]!.pair].sort());
        }
      }
      if (!mayDeactivate) for (const z of zones) if (before.get(z.id) === 'active') expect(z.status, `${step}: ${z.name} of ${z.owner}`).toBe('active');
    };
    const steps: string[] = [];
    for (let i = 0; i < 45; i++) {
      const before = new Map(zones.map((z) => [z.id, z.status]));
      const kind = next();
      let mayDeactivate = false;
      let step: string;
      if (kind < 0.4 || zones.length === 0) {
        const owner = Math.floor(next() * 3);
        const name = pick(NAMES);
        step = `create ${name} by ${owner}`;
        if (!zones.some((z) => z.name === name && z.owner === owner)) {
          const made = await who[owner]!.sdk.zones.create({ account: { id: who[owner]!.account }, name, type: 'full' });
          zones.push({ id: made.id, name, owner, status: made.status as string });
          await who[owner]!.sdk.dns.records.create({ zone_id: made.id, type: 'TXT', name: '@', content: `owner-${owner}`, ttl: 300 } as never);
        }
      } else if (kind < 0.7) {
        const parent = pick(zones);
        const below = NAMES.filter((n) => n.endsWith(`.${parent.name}`));
        const target = Math.floor(next() * 3);
        step = `delegate in ${parent.name} of ${parent.owner} to ${target}`;
        if (below.length > 0) {
          const name = pick(below);
          step += ` at ${name}`;
          const taken = (await who[parent.owner]!.sdk.dns.records.list({ zone_id: parent.id, name: { exact: name } } as never)).result;
          if (taken.length === 0) for (const content of who[target]!.pair) await who[parent.owner]!.sdk.dns.records.create({ zone_id: parent.id, type: 'NS', name, content, ttl: 1 } as never);
        }
      } else if (kind < 0.8) {
        const parent = pick(zones);
        step = `undelegate in ${parent.name} of ${parent.owner}`;
        mayDeactivate = true;
        const ns = (await who[parent.owner]!.sdk.dns.records.list({ zone_id: parent.id, type: 'NS' } as never)).result.filter((r) => r.name !== parent.name);
        if (ns.length > 0) {
          const victim = pick(ns);
          for (const r of ns.filter((x) => x.name === victim.name)) await who[parent.owner]!.sdk.dns.records.delete(r.id!, { zone_id: parent.id });
        }
      } else if (kind < 0.88) {
        const gone = pick(zones);
        step = `delete ${gone.name} of ${gone.owner}`;
        mayDeactivate = true;
        await who[gone.owner]!.sdk.zones.delete({ zone_id: gone.id });
        zones.splice(zones.indexOf(gone), 1);
      } else {
        const z = pick(zones);
        step = `activation check ${z.name} of ${z.owner}`;
        await who[z.owner]!.sdk.zones.activationCheck.trigger({ zone_id: z.id });
      }
      steps.push(step);
      await check(steps.join('; '), before, mayDeactivate);
    }
    // Both sides were exercised: some zones are active, some are waiting.
    expect(zones.some((z) => z.status === 'active')).toBe(true);
    expect(zones.some((z) => z.status !== 'active')).toBe(true);
    for (const name of NAMES) {
      const owner = zones.find((z) => z.name === name && z.status === 'active');
      const res = await dig(server.dnsPort!, name, 'TXT');
      const marks = res.answer.filter((r) => r.includes('"owner-'));
      if (owner) expect(marks, name).toEqual([`${name}. 300 IN TXT "owner-${owner.owner}"`]);
      else expect(marks, name).toEqual([]);
    }
  });
});
