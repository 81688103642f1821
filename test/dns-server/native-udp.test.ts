/**
 * The DNS thread's native UDP path (native/stratus_udp.c, src/dns-server/native-udp.ts) in the compiled
 * `stratus serve` (dist/: `npm run build`, and `npm run build:native` for the addon): batches from many clients
 * at once, truncation and EDNS, IPv6, malformed packets mixed into a batch, a write seen by the very next query
 * (the native cache is dropped per zone as the thread applies the change), signed answers, metrics and the
 * query log for answers that never reach JavaScript; and `--dns-native-udp off` answering the same in
 * JavaScript. Skipped with its reason when the addon is not built here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../faults/load.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const ADDON = path.join(ROOT, 'native', 'build', 'Release', 'stratus_udp.node');
const BUILT = fs.existsSync(ADDON) && fs.existsSync(CLI);
const EMAIL = 'native@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const H = { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' };

interface Server { child: ChildProcess; out: () => string; base: string; admin: string; dnsPort: number; host: string; dataDir: string }
const servers: Server[] = [];

/** Starts the compiled server (JSON logs at info on stdout) and waits for its listeners. */
async function startServer(flags: string[], host = '127.0.0.1'): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-native-udp-'));
  let out = '';
  const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--dns', `${host.includes(':') ? `[${host}]` : host}:0`, '--s3', 'off',
    '--admin', '127.0.0.1:0', '--edge', 'off', '--auth-email', EMAIL, '--auth-key', KEY, '--log-level', 'info', '--log-format', 'json', '--rate-limit', '0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  await waitUntil(() => /DNS listening on \S+:(\d+)/.test(out) && /admin listening on (http[^\s"]+)/.test(out) || child.exitCode !== null, 60_000, 'stratus to listen');
  if (child.exitCode !== null) throw new Error(`stratus exited:\n${out}`);
  const s: Server = {
    child, out: () => out, dataDir, host,
    base: /v4 API listening on (http[^\s"]+)/.exec(out)![1]!,
    admin: /admin listening on (http[^\s"]+)/.exec(out)![1]!,
    dnsPort: Number(/DNS listening on \S+:(\d+)/.exec(out)![1]),
  };
  servers.push(s);
  return s;
}

async function api(s: Server, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${s.base}${p}`, { method, headers: H, ...(body ? { body: JSON.stringify(body) } : {}) });
  const json = (await res.json()) as { success: boolean; result: unknown; errors: unknown };
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

async function createZone(s: Server, name: string): Promise<string> {
  const [account] = await api(s, 'GET', '/accounts');
  return (await api(s, 'POST', '/zones', { account: { id: account.id }, name })).id as string;
}

/** Sends datagrams from one socket (so they arrive back to back, read in one batch) and collects replies for `ms`. */
function burst(s: Server, msgs: Uint8Array[], expect: number, ms = 5000): Promise<Buffer[]> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(s.host.includes(':') ? 'udp6' : 'udp4');
    const replies: Buffer[] = [];
    const done = () => { clearTimeout(timer); sock.close(); resolve(replies); };
    const timer = setTimeout(done, ms);
    sock.on('message', (m) => { replies.push(m); if (replies.length >= expect) done(); });
    sock.bind(0, s.host, () => { for (const m of msgs) sock.send(m, s.dnsPort, s.host); });
  });
}

/** One query, one answer (retried while none comes: UDP on a busy machine). */
async function ask(s: Server, name: string, type: dnsPacket.RecordType = 'A', extra: Partial<dnsPacket.Packet> = {}): Promise<dnsPacket.Packet & { raw: Buffer }> {
  for (let attempt = 0; ; attempt++) {
    const id = Math.floor(Math.random() * 65_535);
    const [raw] = await burst(s, [dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }], ...extra })], 1, 2000);
    if (raw) return { ...dnsPacket.decode(raw), raw };
    if (attempt >= 4) throw new Error(`no answer for ${name} ${type}`);
  }
}

/** The TC bit of a raw answer. */
const tc = (raw: Buffer) => (raw[2]! & 0x02) !== 0;
const dataOf = (p: dnsPacket.Packet) => (p.answers ?? []).map((a) => String((a as { data?: unknown }).data)).sort();

/** The sum of a counter's samples whose labels include all of `labels`. */
async function metric(s: Server, name: string, labels: string[]): Promise<number> {
  const text = await (await fetch(`${s.admin}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) && labels.every((x) => l.includes(x))).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

let native: Server;
let zoneId: string;

beforeAll(async () => {
  if (!BUILT) return;
  native = await startServer(['--dns-log-rate', '100000']); // every query logged (the default 100 a second would skip some)
  zoneId = await createZone(native, 'native.example');
  const records = [
    { type: 'A', name: 'www.native.example', content: '192.0.2.1' },
    { type: 'AAAA', name: 'www.native.example', content: '2001:db8::1' },
    { type: 'A', name: '*.wild.native.example', content: '192.0.2.9' },
    ...Array.from({ length: 40 }, (_, i) => ({ type: 'A', name: `h${i}.native.example`, content: `198.51.100.${i}` })),
    ...Array.from({ length: 12 }, (_, i) => ({ type: 'TXT', name: 'big.native.example', content: `"${String(i).padStart(2, '0')}${'x'.repeat(90)}"` })),
  ];
  for (const r of records) await api(native, 'POST', `/zones/${zoneId}/dns_records`, r);
}, 120_000);

afterAll(async () => {
  for (const s of servers) {
    if (s.child.exitCode === null) {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
    }
    fs.rmSync(s.dataDir, { recursive: true, force: true });
  }
});

describe.skipIf(!BUILT)('the native UDP path', () => {
  it('is the path in use: banner, log line and metric say so', async () => {
    expect(native.out()).toMatch(/DNS listening on 127\.0\.0\.1:\d+ \(UDP and TCP; UDP on the native batched path\)/);
    expect(native.out()).toMatch(/"udp":"native"/);
    expect(await metric(native, 'stratus_dns_udp_path', ['path="native"'])).toBe(1);
    expect(await metric(native, 'stratus_dns_udp_path', ['path="js"'])).toBe(0);
  });

  it('answers many clients at once, each with its own id and letter case', async () => {
    await ask(native, 'www.native.example'); // cached from here on
    const clients = Array.from({ length: 150 }, (_, i) => {
      const name = i % 3 === 0 ? 'WwW.NaTiVe.example' : i % 3 === 1 ? `h${i % 40}.native.example` : `x${i}.wild.native.example`;
      const id = (i * 401) % 65_536;
      return burst(native, [dnsPacket.encode({ type: 'query', id, questions: [{ type: 'A', name }] })], 1, 8000).then(([raw]) => ({ i, id, name, raw }));
    });
    for (const { i, id, name, raw } of await Promise.all(clients)) {
      expect(raw, `client ${i}`).toBeDefined();
      const p = dnsPacket.decode(raw!);
      expect(p.id).toBe(id);
      expect(p.questions![0]!.name).toBe(name); // the client's own case (RFC 4343)
      expect(dataOf(p)).toEqual([i % 3 === 0 ? '192.0.2.1' : i % 3 === 1 ? `198.51.100.${i % 40}` : '192.0.2.9']);
    }
  });

  it('truncates without EDNS and answers in full with a 4096-byte EDNS size, from the cache too', async () => {
    for (let round = 0; round < 3; round++) {
      const plain = await ask(native, 'big.native.example', 'TXT');
      expect(tc(plain.raw)).toBe(true);
      expect(plain.raw.length).toBeLessThanOrEqual(512);
      const edns = await ask(native, 'big.native.example', 'TXT', { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096 } as never] });
      expect(tc(edns.raw)).toBe(false);
      expect(edns.answers).toHaveLength(12);
      const small = await ask(native, 'big.native.example', 'TXT', { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 600 } as never] });
      expect(tc(small.raw)).toBe(true);
      expect(small.raw.length).toBeLessThanOrEqual(600);
    }
  });

  it('answers malformed packets mixed into a batch as the JavaScript path does, and the good ones beside them', async () => {
    const good = (id: number) => dnsPacket.encode({ type: 'query', id, questions: [{ type: 'A', name: 'www.native.example' }] });
    const twoQuestions = dnsPacket.encode({ type: 'query', id: 7002, questions: [{ type: 'A', name: 'www.native.example' }, { type: 'A', name: 'h1.native.example' }] });
    const badLabel = Buffer.from(good(7003));
    badLabel[12] = 70; // a label length over 63
    const response = Buffer.from(good(7004));
    response[2]! |= 0x80; // QR set: dropped
    const truncatedName = Buffer.from(good(7005)).subarray(0, 20);
    const msgs = [good(7000), Buffer.from([1, 2, 3]), twoQuestions, good(7001), badLabel, response, truncatedName, good(7006), Buffer.alloc(0), good(7007)];
    // 4 good + FORMERR for two questions, the bad label and the cut name; nothing for the 3 bytes, the response and the empty one.
    const replies = await burst(native, msgs, 7);
    const byId = new Map(replies.map((r) => [r.readUInt16BE(0), r]));
    for (const id of [7000, 7001, 7006, 7007]) expect(dataOf(dnsPacket.decode(byId.get(id)!))).toEqual(['192.0.2.1']);
    for (const id of [7002, 7003, 7005]) expect(byId.get(id)![3]! & 0x0f, `id ${id}`).toBe(1); // FORMERR
    expect(byId.has(7004)).toBe(false);
    expect(replies).toHaveLength(7);
    expect((await ask(native, 'www.native.example')).answers).toHaveLength(1); // still serving
  });

  it('shows a write to the very next query, every time (read-your-writes through the native cache)', async () => {
    const name = 'rw.native.example';
    const rec = await api(native, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name, content: '203.0.113.0' });
    let stale = 0;
    for (let i = 1; i <= 25; i++) {
      await ask(native, name);
      await ask(native, name); // a native hit now
      await api(native, 'PATCH', `/zones/${zoneId}/dns_records/${rec.id}`, { content: `203.0.113.${i}` });
      if (dataOf(await ask(native, name)).join() !== `203.0.113.${i}`) stale++;
      if (dataOf(await ask(native, name)).join() !== `203.0.113.${i}`) stale++;
    }
    await api(native, 'DELETE', `/zones/${zoneId}/dns_records/${rec.id}`);
    expect((await ask(native, name)).raw[3]! & 0x0f).toBe(3); // NXDOMAIN
    expect(stale).toBe(0);
    // A write to another zone keeps this one's answers right.
    const other = await createZone(native, 'other-native.example');
    await api(native, 'POST', `/zones/${other}/dns_records`, { type: 'A', name: 'www.other-native.example', content: '192.0.2.77' });
    expect(dataOf(await ask(native, 'www.other-native.example'))).toEqual(['192.0.2.77']);
    expect(dataOf(await ask(native, 'www.native.example'))).toEqual(['192.0.2.1']);
  });

  it('serves signed answers (DO) from the native cache identical to the first one', async () => {
    await api(native, 'PATCH', `/zones/${zoneId}/dnssec`, { status: 'active' });
    const opt = { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: dnsPacket.DNSSEC_OK } as never] };
    await waitUntil(async () => ((await ask(native, 'native.example', 'DNSKEY', opt)).answers ?? []).some((a) => a.type === 'DNSKEY'), 20_000, 'DNSKEY served');
    const first = await ask(native, 'www.native.example', 'A', opt);
    expect(first.answers!.map((a) => a.type).sort()).toEqual(['A', 'RRSIG']);
    for (let i = 0; i < 5; i++) expect((await ask(native, 'www.native.example', 'A', opt)).raw.subarray(2)).toEqual(first.raw.subarray(2));
    const unsigned = await ask(native, 'www.native.example', 'A');
    expect(unsigned.answers!.map((a) => a.type)).toEqual(['A']);
  });

  it('counts natively answered queries in the metrics and gives them access lines', async () => {
    const before = await metric(native, 'stratus_dns_queries_total', ['transport="udp"', 'qtype="MX"']);
    for (let i = 0; i < 10; i++) await ask(native, `h${i}.native.example`, 'MX');
    for (let i = 0; i < 10; i++) await ask(native, `h${i}.native.example`, 'MX'); // hits
    await waitUntil(async () => (await metric(native, 'stratus_dns_queries_total', ['transport="udp"', 'qtype="MX"'])) - before >= 20, 15_000, 'MX queries counted');
    expect(await metric(native, 'stratus_dns_queries_total', ['transport="udp"', 'qtype="MX"', 'rcode="NOERROR"'])).toBeGreaterThanOrEqual(20);
    const lines = () => native.out().split('\n').filter((l) => l.includes('"component":"access"') && l.includes('"route":"MX"') && l.includes('"remote":"127.0.0.1"'));
    await waitUntil(() => lines().length >= 20, 10_000, 'MX access lines');
  });
});

describe.skipIf(!BUILT)('the native UDP path, other servers', () => {
  it('serves IPv6 clients, with their address in the access lines', async () => {
    const v6 = await startServer([], '::1');
    expect(v6.out()).toMatch(/UDP on the native batched path/);
    const zone = await createZone(v6, 'six.example');
    await api(v6, 'POST', `/zones/${zone}/dns_records`, { type: 'AAAA', name: 'www.six.example', content: '2001:db8::6' });
    for (let i = 0; i < 4; i++) expect(dataOf(await ask(v6, 'www.six.example', 'AAAA'))).toEqual(['2001:db8::6']);
    const replies = await burst(v6, Array.from({ length: 30 }, (_, i) => dnsPacket.encode({ type: 'query', id: 100 + i, questions: [{ type: 'AAAA', name: 'WWW.six.example' }] })), 30);
    expect(replies.map((r) => r.readUInt16BE(0)).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => 100 + i));
    await waitUntil(() => (v6.out().match(/"remote":"::1"/g) ?? []).length >= 34, 10_000, 'IPv6 access lines');
  });

  it('skips access lines over --dns-log-rate for native answers as for the others, and says how many', async () => {
    const limited = await startServer(['--dns-log-rate', '3']);
    const zone = await createZone(limited, 'limited.example');
    await api(limited, 'POST', `/zones/${zone}/dns_records`, { type: 'A', name: 'www.limited.example', content: '192.0.2.3' });
    const replies = await burst(limited, Array.from({ length: 60 }, (_, i) => dnsPacket.encode({ type: 'query', id: i, questions: [{ type: 'A', name: 'www.limited.example' }] })), 60);
    expect(replies).toHaveLength(60);
    await new Promise((r) => setTimeout(r, 1100)); // the next second's first line reports the skipped ones
    await ask(limited, 'www.limited.example');
    await waitUntil(() => /queries not logged \(over --dns-log-rate\)/.test(limited.out()), 10_000, 'the skipped-lines summary');
    const skipped = JSON.parse(limited.out().split('\n').find((l) => l.includes('queries not logged'))!) as { skipped: number };
    expect(skipped.skipped).toBeGreaterThanOrEqual(50);
  });

  it('--dns-native-udp off answers in JavaScript, and says so', async () => {
    const js = await startServer(['--dns-native-udp', 'off']);
    expect(js.out()).toMatch(/UDP and TCP; UDP in JavaScript: native UDP path off/);
    expect(await metric(js, 'stratus_dns_udp_path', ['path="js"'])).toBe(1);
    const zone = await createZone(js, 'js.example');
    const rec = await api(js, 'POST', `/zones/${zone}/dns_records`, { type: 'A', name: 'www.js.example', content: '192.0.2.5' });
    expect(dataOf(await ask(js, 'www.js.example'))).toEqual(['192.0.2.5']);
    await api(js, 'PATCH', `/zones/${zone}/dns_records/${rec.id}`, { content: '192.0.2.6' });
    expect(dataOf(await ask(js, 'WWW.js.example'))).toEqual(['192.0.2.6']);
  });
});
