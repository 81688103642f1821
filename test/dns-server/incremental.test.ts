/**
 * Changesets end to end, on PostgreSQL: a random (seeded) sequence of API writes (creates, updates, deletes,
 * batches, zone-file imports, DNS and zone settings) of every kind the DNS server transforms (wildcards, CNAME
 * chains, flattening, delegations, proxied names, HTTPS synthesis, multi-provider NS). Node A applies them from
 * its change feed, node B follows through the change log, a node started while writes go on (then stopped and
 * started again) loads and catches up, and a node started afresh loads the zone whole: at every checkpoint all
 * of them transfer (AXFR) exactly the same zone.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { freshPostgresUrl } from '../helpers/postgres.js';

const run = promisify(execFile);
const ZONE = 'incr.example';
const NAMES = ['@', 'a', 'b', 'a.b', 'x.a.b', '*', '*.b', 'c.d.e', 'sub', 'ns.sub', 'w.sub', 'm', 'www'];

let url: string;
let drop: () => Promise<void>;
let a: TestServer;
let b: TestServer;
let zoneId: string;

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('incremental'));
  a = await startTestServer({ flags: { 'database-url': url } });
  b = await startTestServer({ flags: { 'database-url': url } });
  zoneId = await createZone(a, ZONE);
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await drop?.();
});

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const r = rng(19);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const full = (label: string) => (label === '@' ? ZONE : `${label}.${ZONE}`);

function recordBody(): Record<string, unknown> {
  const name = full(pick(NAMES));
  const ttl = pick([1, 120, 3600]);
  const proxied = r() < 0.25;
  switch (pick(['A', 'A', 'AAAA', 'CNAME', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA'])) {
    case 'A': return { type: 'A', name, content: `198.51.100.${1 + Math.floor(r() * 9)}`, ttl, proxied };
    case 'AAAA': return { type: 'AAAA', name, content: `2001:db8::${1 + Math.floor(r() * 9)}`, ttl, proxied };
    case 'CNAME': return {
      type: 'CNAME', name, ttl, proxied,
      content: r() < 0.2 ? 'elsewhere.example.net' : full(pick(NAMES)).replace('*', 'q'),
      ...(r() < 0.3 && !proxied ? { settings: { flatten_cname: true } } : {}),
    };
    case 'MX': return { type: 'MX', name, content: full(pick(['m', 'a', 'www'])), priority: 10, ttl };
    case 'TXT': return { type: 'TXT', name, content: `"t${Math.floor(r() * 5)}"`, ttl };
    case 'NS': return { type: 'NS', name: full(pick(['sub', 'sub', '@'])), content: pick([full('ns.sub'), 'ns.elsewhere.example.net']), ttl };
    case 'SRV': return { type: 'SRV', name: `_sip._tcp.${full(pick(['@', 'a']))}`, data: { priority: 1, weight: 2, port: 5060, target: full('www') }, ttl };
    default: return { type: 'CAA', name, data: { flags: 0, tag: 'issue', value: 'ca.example' }, ttl };
  }
}

async function recordIds(): Promise<string[]> {
  const res = await api(a, 'GET', `/zones/${zoneId}/dns_records?per_page=5000`);
  return (res.body.result as Array<{ id: string }>).map((x) => x.id);
}

/** Writes that succeeded, by kind (the sequence must exercise each). */
const done = new Map<string, number>();
function count(kind: string, status: number): void {
  if (status === 200) done.set(kind, (done.get(kind) ?? 0) + 1);
}

/** One random write through node A's API (rule violations are refused and change nothing, like for users). */
async function randomWrite(): Promise<void> {
  const roll = r();
  const ids = roll >= 0.45 && roll < 0.8 ? await recordIds() : [];
  if (roll < 0.45 || (ids.length === 0 && roll < 0.8)) {
    count('create', (await api(a, 'POST', `/zones/${zoneId}/dns_records`, recordBody())).status);
  } else if (roll < 0.6) {
    count('update', (await api(a, 'PUT', `/zones/${zoneId}/dns_records/${pick(ids)}`, recordBody())).status);
  } else if (roll < 0.7) {
    count('delete', (await api(a, 'DELETE', `/zones/${zoneId}/dns_records/${pick(ids)}`)).status);
  } else if (roll < 0.8) {
    const posts = [recordBody(), recordBody()];
    count('batch', (await api(a, 'POST', `/zones/${zoneId}/dns_records/batch`, { deletes: [{ id: pick(ids) }], patches: [{ id: pick(ids), ttl: 600 }], posts })).status);
  } else if (roll < 0.88) {
    const lines = [`${pick(['imp', 'a', 'x.a.b'])}.${ZONE}. 300 IN A 203.0.113.${1 + Math.floor(r() * 9)}`, `*.imp.${ZONE}. 300 IN TXT "wild"`, `alias.${ZONE}. 300 IN CNAME ${full(pick(NAMES)).replace('*', 'q')}.`];
    const form = new FormData();
    form.append('file', new Blob([`${lines.join('\n')}\n`]), 'zone.txt');
    count('import', (await fetch(`${a.apiBase}/zones/${zoneId}/dns_records/import`, { method: 'POST', headers: { 'x-auth-email': a.email, 'x-auth-key': a.key }, body: form })).status);
  } else if (roll < 0.94) {
    count('dns settings', (await api(a, 'PATCH', `/zones/${zoneId}/dns_settings`, pick([{ flatten_all_cnames: r() < 0.5 }, { multi_provider: r() < 0.5 }, { soa: { ttl: pick([900, 3600]) } }]))).status);
  } else {
    count('zone settings', (await api(a, 'PATCH', `/zones/${zoneId}/settings/${pick(['http3', 'http2'])}`, { value: pick(['on', 'off']) })).status);
  }
}

/** The zone as the node transfers it, one sorted line per record. */
async function axfr(node: TestServer): Promise<string[]> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(node.dnsPort), ZONE, 'AXFR', '+nocmd', '+nostats', '+nocomments', '+tries=1', '+time=5']);
  return stdout.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l && !l.startsWith(';')).sort();
}

async function converges(node: TestServer, want: string[], ms = 20_000): Promise<string[]> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await axfr(node);
    if (JSON.stringify(got) === JSON.stringify(want) || Date.now() > end) return got;
    await new Promise((res) => setTimeout(res, 250));
  }
}

async function checkpoint(others: TestServer[]): Promise<string[]> {
  const want = await axfr(a);
  const fresh = await startTestServer({ flags: { 'database-url': url } });
  try {
    expect(await axfr(fresh)).toEqual(want); // a full load gives what the changesets built
  } finally {
    await fresh.stop();
  }
  for (const node of others) expect(await converges(node, want)).toEqual(want);
  return want;
}

describe('changesets from API writes', () => {
  it('node A (change feed), node B (change log), restarted and fresh nodes serve the same zone', async () => {
    for (let i = 0; i < 40; i++) await randomWrite();
    const first = await checkpoint([b]);
    expect(first.length).toBeGreaterThan(10);

    // A node that starts while writes go on loads pages of the zone as they change, then catches up.
    const writes = (async () => { for (let i = 0; i < 30; i++) await randomWrite(); })();
    let mid = await startTestServer({ flags: { 'database-url': url } });
    await writes;
    await checkpoint([b, mid]);

    // Stopped mid-stream and started again: it loads and follows again.
    const more = (async () => { for (let i = 0; i < 30; i++) await randomWrite(); })();
    await mid.stop();
    await more;
    mid = await startTestServer({ flags: { 'database-url': url } });
    for (let i = 0; i < 30; i++) await randomWrite();
    try {
      await checkpoint([b, mid]);
    } finally {
      await mid.stop();
    }
    expect([...done.keys()].sort()).toEqual(['batch', 'create', 'delete', 'dns settings', 'import', 'update', 'zone settings']);
  });
});
