/**
 * Stratus as a secondary of a stock Knot DNS primary (Debian `knot`), set up through the official SDK
 * (`zones.create` with `type: "secondary"`, `dns.zoneTransfers.incoming`, `forceAXFR`), with TSIG: the first
 * pull is an AXFR, a change made on Knot reaches Stratus by NOTIFY and IXFR (Knot's log says so), a DNSSEC
 * zone signed by Knot is served with its signatures, a wrong key is refused (the old copy kept, the error
 * shown), the primary going away and coming back, NOTIFY from elsewhere refused, the copy read-only through
 * v4, AXFR and IXFR (the copy's journal, signatures included) out of the secondary zone, and another account's key and token get 404 7003.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Cloudflare from 'cloudflare';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig, type DigResult } from './dig.js';
import { freePort } from './ports.js';
import { encodeMessage } from '../../src/dns/wire/message.js';
import { Writer } from '../../src/dns/wire/writer.js';
import { OPCODE, TYPE } from '../../src/dns/wire/constants.js';
import { knotConfigHead } from './knot.js';
import { untilDefined } from '../helpers/until.js';

const run = promisify(execFile);
const ZONE = 'knot-primary.example';
const SIGNED = 'signed-primary.example';
const NSEC3 = 'nsec3-primary.example';
const SECRET = Buffer.from('knot-primary-secret-0123456789abcdef').toString('base64');
const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';
let server: TestServer;
let sdk: Cloudflare;
let account: string;
let dir: string;
let knot: ChildProcess | undefined;
let knotPort: number;
let knotLog = '';
let zoneId: string;
let signedId: string;
let nsec3Id: string;
let tsigId: string;
let peerId: string;

/** Polls `fn` until it gives a value (test/helpers/until.ts). */
const until = <T>(what: string, fn: () => Promise<T | undefined>, ms = 40_000): Promise<T> =>
  untilDefined(what, fn, { ms, pollMs: 200, detail: () => `--- knot\n${knotLog}` });

const serialOf = (r: DigResult) => (r.answer[0] ? Number(r.answer[0].split(' ')[6]) : undefined);

/** The serials of the SOA records among kdig's lines (not RRSIG SOA, not NSEC bitmaps). */
const soaSerials = (lines: string[]) => lines.map((l) => l.split(' ')).filter((f) => f[3] === 'SOA').map((f) => Number(f[6]));

/** kdig's IXFR from Stratus: the record lines, whitespace collapsed. */
async function ixfrFromStratus(name: string, from: number): Promise<string[]> {
  const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(server.dnsPort), '+time=5', '+retry=0', name, `IXFR=${from}`], { timeout: 20_000 });
  return stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).map((l) => l.trim().split(/\s+/).join(' '));
}
const knotc = (...args: string[]) => run('knotc', ['-s', path.join(dir, 'knot.sock'), ...args], { timeout: 15_000 });

function startKnot(): void {
  knot = spawn('knotd', ['-c', path.join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  knot.stderr!.on('data', (d: Buffer) => { knotLog += d.toString(); });
}

async function stopKnot(): Promise<void> {
  if (knot && knot.exitCode === null) {
    const k = knot;
    const exited = new Promise((r) => k.once('exit', r));
    k.kill('SIGTERM');
    await exited;
  }
}

beforeAll(async () => {
  knotPort = await freePort();
  // Knot listens on loopback: the operator allows it as a peer address (refused otherwise: peer-address.test.ts).
  server = await startTestServer({ flags: { 'transfer-peer-allow': '127.0.0.0/8' } });
  sdk = server.sdk();
  account = await accountId(server);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-knot-primary-'));
  fs.mkdirSync(path.join(dir, 'zones'));
  fs.mkdirSync(path.join(dir, 'db')); // Knot's journal and keys live there
  fs.writeFileSync(path.join(dir, 'zones', `${ZONE}.zone`), `$ORIGIN ${ZONE}.
$TTL 300
@ SOA ns1 hostmaster 2026010101 3600 600 86400 300
@ 172800 NS ns1
ns1 A 192.0.2.53
short 30 A 192.0.2.30
svc HTTPS 1 . alpn="h2,h3" port=8443 ipv4hint=192.0.2.9
www A 192.0.2.10
www AAAA 2001:db8::10
txt TXT "hello world" "two"
@ MX 10 mail
mail A 192.0.2.25
_sip._tcp SRV 1 2 5060 mail
@ CAA 0 issue "ca.example"
alias CNAME www
`);
  fs.writeFileSync(path.join(dir, 'zones', `${SIGNED}.zone`), `$ORIGIN ${SIGNED}.
$TTL 300
@ SOA ns1 hostmaster 1 3600 600 86400 300
@ NS ns1
ns1 A 192.0.2.53
www A 192.0.2.77
`);
  fs.writeFileSync(path.join(dir, 'zones', `${NSEC3}.zone`), `$ORIGIN ${NSEC3}.
$TTL 300
@ SOA ns1 hostmaster 1 3600 600 86400 300
@ NS ns1
ns1 A 192.0.2.53
www A 192.0.2.78
`);
  fs.writeFileSync(path.join(dir, 'knot.conf'), `${knotConfigHead(dir, knotPort)}key:
  - id: xfer-key
    algorithm: hmac-sha256
    secret: ${SECRET}
remote:
  - id: stratus
    address: 127.0.0.1@${server.dnsPort}
    key: xfer-key
acl:
  - id: to_stratus
    address: 127.0.0.1
    key: xfer-key
    action: transfer
template:
  - id: default
    storage: "${dir}/zones"
    file: "%s.zone"
    zonefile-sync: -1
    notify: stratus
    acl: to_stratus
policy:
  - id: nsec3
    nsec3: on
    nsec3-iterations: 0
zone:
  - domain: ${ZONE}
  - domain: ${SIGNED}
    dnssec-signing: on
  - domain: ${NSEC3}
    dnssec-signing: on
    dnssec-policy: nsec3
`);
  startKnot();
  await until('Knot serving', async () => (serialOf(await dig(knotPort, ZONE, 'SOA')) === 2026010101 ? true : undefined));

  const zt = sdk.dns.zoneTransfers;
  tsigId = (await zt.tsigs.create({ account_id: account, name: 'xfer-key.', algo: 'hmac-sha256.', secret: SECRET })).id;
  peerId = (await zt.peers.create({ account_id: account, name: 'knot' })).id;
  await zt.peers.update(peerId, { account_id: account, name: 'knot', ip: '127.0.0.1', port: knotPort, ixfr_enable: true, tsig_id: tsigId });
  zoneId = (await sdk.zones.create({ account: { id: account }, name: ZONE, type: 'secondary' })).id;
  signedId = (await sdk.zones.create({ account: { id: account }, name: SIGNED, type: 'secondary' })).id;
  nsec3Id = (await sdk.zones.create({ account: { id: account }, name: NSEC3, type: 'secondary' })).id;
}, 60_000);

afterAll(async () => {
  await stopKnot();
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

let firstTransferred = '';

describe('Stratus as a secondary of Knot', () => {
  it('takes incoming settings through the SDK and pulls the zone by AXFR, signed with the peer key', async () => {
    const created = await sdk.dns.zoneTransfers.incoming.create({ zone_id: zoneId, name: `${ZONE}.`, peers: [peerId], auto_refresh_seconds: 3600 });
    expect(created).toMatchObject({ id: zoneId, name: `${ZONE}.`, peers: [peerId], auto_refresh_seconds: 3600, created_time: expect.any(String), modified_time: expect.any(String) });
    await until('the copy', async () => ((await dig(server.dnsPort!, `www.${ZONE}`, 'A')).answer.length ? true : undefined));
    expect((await dig(server.dnsPort!, `www.${ZONE}`, 'A')).answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.10`]);
    expect(serialOf(await dig(server.dnsPort!, ZONE, 'SOA'))).toBe(2026010101);
    for (const [name, type] of [[ZONE, 'NS'], [ZONE, 'MX'], [ZONE, 'CAA'], [`txt.${ZONE}`, 'TXT'], [`www.${ZONE}`, 'AAAA'], [`_sip._tcp.${ZONE}`, 'SRV'], [`alias.${ZONE}`, 'CNAME'], [`nope.${ZONE}`, 'A'], [`short.${ZONE}`, 'A'], [`svc.${ZONE}`, 'HTTPS']] as const) {
      const a = await dig(knotPort, name, type);
      const b = await dig(server.dnsPort!, name, type);
      expect({ q: `${name} ${type}`, status: b.status, answer: [...b.answer].sort() }).toEqual({ q: `${name} ${type}`, status: a.status, answer: [...a.answer].sort() });
    }
    const got = await until('soa_serial', async () => {
      const g = await sdk.dns.zoneTransfers.incoming.get({ zone_id: zoneId });
      return g.soa_serial === 2026010101 ? g : undefined;
    });
    expect(got.checked_time).toEqual(expect.any(String));
    // The transfer's time is recorded (the SDK's incoming type has no field for it: Stratus's addition, as production's outgoing one).
    firstTransferred = (got as { last_transferred_time?: string }).last_transferred_time!;
    expect(Date.parse(firstTransferred)).toBeGreaterThanOrEqual(Date.parse(created.created_time!));
    expect(Date.parse(firstTransferred)).toBeLessThanOrEqual(Date.now());
    expect((got as { error?: string }).error).toBeUndefined(); // every record of the primary is served
    expect(knotLog).toMatch(/AXFR, outgoing/);
  });

  it('serves its copy to its own secondaries (AXFR out)', async () => {
    const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(server.dnsPort), '+nocookie', ZONE, 'AXFR'], { timeout: 15_000 });
    expect(stdout).toContain('192.0.2.10');
    expect(stdout.match(/\tSOA\t/g)?.length).toBe(2);
  });

  it('takes a change on Knot by NOTIFY and IXFR', async () => {
    await knotc('zone-begin', ZONE);
    await knotc('zone-set', ZONE, 'new', '300', 'A', '192.0.2.99');
    await knotc('zone-unset', ZONE, 'mail', 'A');
    await knotc('zone-commit', ZONE);
    const serial = serialOf(await dig(knotPort, ZONE, 'SOA'))!;
    expect(serial).toBeGreaterThan(2026010101);
    // auto_refresh_seconds is an hour: only the NOTIFY can have started this pull.
    await until('the change on Stratus', async () => (serialOf(await dig(server.dnsPort!, ZONE, 'SOA')) === serial ? true : undefined));
    expect((await dig(server.dnsPort!, `new.${ZONE}`, 'A')).answer).toEqual([`new.${ZONE}. 300 IN A 192.0.2.99`]);
    expect((await dig(server.dnsPort!, `mail.${ZONE}`, 'A')).answer).toEqual([]);
    expect(knotLog).toMatch(/IXFR, outgoing/);
    const after = await sdk.dns.zoneTransfers.incoming.get({ zone_id: zoneId }) as { soa_serial?: number; last_transferred_time?: string };
    expect(after.soa_serial).toBe(serial);
    expect(Date.parse(after.last_transferred_time!)).toBeGreaterThan(Date.parse(firstTransferred));
    // Knot logs a NOTIFY answered NOERROR (a refused one is a warning with the rcode).
    await until('the NOTIFY acknowledged', async () => (new RegExp(`notify, outgoing, remote [^,]+, serial ${serial}`).test(knotLog) ? true : undefined));
  });

  it('answers its own secondaries IXFR from the copy\'s journal: the condensed difference, not the whole zone', async () => {
    const lines = await ixfrFromStratus(ZONE, 2026010101);
    const serial = serialOf(await dig(server.dnsPort!, ZONE, 'SOA'))!;
    // current SOA, the client's SOA, deletions, current SOA, additions, current SOA (RFC 1995 §4).
    expect(soaSerials(lines)).toEqual([serial, 2026010101, serial, serial]);
    expect(lines).toContain(`new.${ZONE}. 300 IN A 192.0.2.99`);
    expect(lines.some((l) => l.startsWith(`mail.${ZONE}. `) && / A /.test(l))).toBe(true); // deleted
    expect(lines.some((l) => l.startsWith(`www.${ZONE}. `))).toBe(false); // unchanged: not sent
    expect(await ixfrFromStratus(ZONE, serial)).toHaveLength(1); // current: the SOA alone
  });

  it('serves a zone signed by Knot with its signatures, unchanged', async () => {
    await sdk.dns.zoneTransfers.incoming.create({ zone_id: signedId, name: SIGNED, peers: [peerId], auto_refresh_seconds: 3600 });
    const knotAnswer = await until('Knot signing', async () => {
      const r = await dig(knotPort, `www.${SIGNED}`, 'A', { extra: ['+dnssec'] });
      return r.answer.some((l) => l.includes('RRSIG')) ? r : undefined;
    });
    await until('the signed copy', async () => ((await dig(server.dnsPort!, `www.${SIGNED}`, 'A', { extra: ['+dnssec'] })).answer.some((l) => l.includes('RRSIG')) ? true : undefined));
    const ours = await dig(server.dnsPort!, `www.${SIGNED}`, 'A', { extra: ['+dnssec'] });
    expect([...ours.answer].sort()).toEqual([...knotAnswer.answer].sort());
    const keys = await dig(server.dnsPort!, SIGNED, 'DNSKEY', { extra: ['+dnssec'] });
    expect([...keys.answer].sort()).toEqual([...(await dig(knotPort, SIGNED, 'DNSKEY', { extra: ['+dnssec'] })).answer].sort());
    // CDS and CDNSKEY (and their signatures) are no types Stratus stores: named as not served.
    expect((await sdk.dns.zoneTransfers.incoming.get({ zone_id: signedId }) as { error?: string }).error).toMatch(/CDNSKEY/);
  });

  it('answers IXFR out of a copy signed by Knot with the changed records and their new signatures', async () => {
    const before = serialOf(await dig(server.dnsPort!, SIGNED, 'SOA'))!;
    await knotc('zone-begin', SIGNED);
    await knotc('zone-set', SIGNED, 'ixfr-out', '300', 'A', '192.0.2.77');
    await knotc('zone-commit', SIGNED);
    const serial = await until('Knot re-signed', async () => {
      const s = serialOf(await dig(knotPort, SIGNED, 'SOA'));
      return s !== undefined && s !== before ? s : undefined;
    });
    await until('the signed change on Stratus', async () => (serialOf(await dig(server.dnsPort!, SIGNED, 'SOA')) === serial ? true : undefined));
    const lines = await ixfrFromStratus(SIGNED, before);
    expect(soaSerials(lines)).toEqual([serial, before, serial, serial]);
    expect(lines).toContain(`ixfr-out.${SIGNED}. 300 IN A 192.0.2.77`);
    expect(lines.some((l) => l.startsWith(`ixfr-out.${SIGNED}. `) && / RRSIG A /.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith(`www.${SIGNED}. `) && / A /.test(l) && !/RRSIG|NSEC/.test(l))).toBe(false);
  });

  it('serves a zone Knot signed with NSEC3: the same denial proofs', async () => {
    await sdk.dns.zoneTransfers.incoming.create({ zone_id: nsec3Id, name: NSEC3, peers: [peerId], auto_refresh_seconds: 3600 });
    await until('Knot signing with NSEC3', async () => ((await dig(knotPort, NSEC3, 'NSEC3PARAM')).answer.length ? true : undefined));
    await until('the NSEC3 copy', async () => ((await dig(server.dnsPort!, NSEC3, 'NSEC3PARAM')).answer.length ? true : undefined));
    for (const [name, type] of [[`nope.${NSEC3}`, 'A'], [`www.${NSEC3}`, 'TXT'], [`www.${NSEC3}`, 'A']] as const) {
      const a = await dig(knotPort, name, type, { extra: ['+dnssec'] });
      const b = await dig(server.dnsPort!, name, type, { extra: ['+dnssec'] });
      expect({ q: `${name} ${type}`, status: b.status, answer: [...b.answer].sort(), authority: [...b.authority].sort() })
        .toEqual({ q: `${name} ${type}`, status: a.status, answer: [...a.answer].sort(), authority: [...a.authority].sort() });
    }
  });

  it('refuses record writes and DNSSEC changes of a secondary zone in the v4 envelope', async () => {
    await expect(sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'x', content: '192.0.2.1' } as never)).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 1292 })] });
    const list = await sdk.dns.records.list({ zone_id: zoneId });
    const www = list.result.find((r) => r.name === `www.${ZONE}` && r.type === 'A')!;
    expect(www).toBeDefined();
    for (const [method, p, body] of [
      ['PATCH', `/zones/${zoneId}/dns_records/${www.id}`, { content: '192.0.2.11' }],
      ['PUT', `/zones/${zoneId}/dns_records/${www.id}`, { type: 'A', name: 'www', content: '192.0.2.11' }],
      ['DELETE', `/zones/${zoneId}/dns_records/${www.id}`, undefined],
      ['POST', `/zones/${zoneId}/dns_records/batch`, { posts: [{ type: 'A', name: 'y', content: '192.0.2.2' }] }],
      ['PATCH', `/zones/${zoneId}/dnssec`, { status: 'active' }],
      ['PATCH', `/zones/${zoneId}/dns_settings`, { soa: { expire: 604800, min_ttl: 1800, mname: null, refresh: 10000, retry: 2400, rname: 'admin.example.com', ttl: 3600 } }],
      ['PATCH', `/zones/${zoneId}`, { type: 'full' }],
    ] as const) {
      const res = await api(server, method, p, body);
      expect([res.status, res.body.success, res.body.errors[0]?.code], `${method} ${p}`).toEqual([400, false, p.endsWith(zoneId) ? 1102 : 1292]);
    }
    const form = new FormData();
    form.append('file', new Blob([`z.${ZONE}. 300 IN A 192.0.2.3\n`]), 'zone.txt');
    const imported = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/import`, { method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key }, body: form });
    expect([imported.status, ((await imported.json()) as { errors: Array<{ code: number }> }).errors[0]?.code]).toEqual([400, 1292]);
    expect((await dig(server.dnsPort!, `www.${ZONE}`, 'A')).answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.10`]);
    const incomingOnFull = await api(server, 'POST', `/zones/${(await sdk.zones.create({ account: { id: account }, name: 'full-zone.example' })).id}/secondary_dns/incoming`, { name: 'full-zone.example', peers: [peerId], auto_refresh_seconds: 60 });
    expect([incomingOnFull.status, incomingOnFull.body.errors[0]?.code]).toEqual([400, 1293]);
    const badRefresh = await api(server, 'PUT', `/zones/${zoneId}/secondary_dns/incoming`, { name: ZONE, peers: [peerId], auto_refresh_seconds: 0 });
    expect([badRefresh.status, badRefresh.body.errors[0]?.code]).toEqual([400, 1290]);
  });

  it('refuses NOTIFY from an address that is no primary of the zone', async () => {
    const w = new Writer(512);
    encodeMessage(w, { id: 4242, qr: false, opcode: OPCODE.NOTIFY, aa: true, rd: false, rcode: 0, question: { name: ZONE, type: TYPE.SOA, klass: 1 }, answers: [], authorities: [], additionals: [] });
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.2', () => r()));
    try {
      const reply = await until('a NOTIFY answer', () => new Promise<Buffer | undefined>((resolve) => {
        const t = setTimeout(() => resolve(undefined), 1000);
        sock.once('message', (m) => { clearTimeout(t); resolve(m); });
        sock.send(w.result(), server.dnsPort!, '127.0.0.1');
      }));
      expect(reply.readUInt16BE(0)).toBe(4242);
      expect(reply[3]! & 0xf).toBe(5); // REFUSED
    } finally {
      sock.close();
    }
  });

  it('keeps its copy when the key is wrong, and shows the error', async () => {
    const zt = sdk.dns.zoneTransfers;
    const { checked_time: before, last_transferred_time: transferredBefore } = await zt.incoming.get({ zone_id: zoneId }) as { checked_time?: string; last_transferred_time?: string };
    await zt.tsigs.update(tsigId, { account_id: account, name: 'xfer-key.', algo: 'hmac-sha256.', secret: Buffer.from('a-wrong-secret-0123456789abcdef').toString('base64') });
    expect(await zt.forceAXFR.create({ zone_id: zoneId })).toBe('OK');
    const failed = await until('the refused pull', async () => {
      const g = await zt.incoming.get({ zone_id: zoneId }) as { checked_time?: string; error?: string };
      return g.checked_time !== before && g.error ? g : undefined;
    });
    expect([failed.error, (failed as { last_transferred_time?: string }).last_transferred_time]).toEqual([expect.stringMatching(/TSIG|NOTAUTH/), transferredBefore]);
    expect((await dig(server.dnsPort!, `new.${ZONE}`, 'A')).answer).toEqual([`new.${ZONE}. 300 IN A 192.0.2.99`]);
    await zt.tsigs.update(tsigId, { account_id: account, name: 'xfer-key.', algo: 'hmac-sha256.', secret: SECRET });
    await zt.forceAXFR.create({ zone_id: zoneId });
    const good = await until('the pull with the right key', async () => {
      const g = await zt.incoming.get({ zone_id: zoneId }) as { error?: string; last_transferred_time?: string };
      return g.error === undefined ? g : undefined;
    });
    // The refused pull left the time of the last transfer; the forced AXFR after it moved it.
    expect(Date.parse(good.last_transferred_time!)).toBeGreaterThan(Date.parse(transferredBefore!));
  });

  it('moves checked_time, not last_transferred_time, on a refresh that finds the primary unchanged', async () => {
    const zt = sdk.dns.zoneTransfers;
    const before = await zt.incoming.get({ zone_id: zoneId }) as { checked_time?: string; last_transferred_time?: string };
    await zt.incoming.update({ zone_id: zoneId, name: ZONE, peers: [peerId], auto_refresh_seconds: 1 });
    const later = await until('a refresh', async () => {
      const g = await zt.incoming.get({ zone_id: zoneId }) as { checked_time?: string; last_transferred_time?: string };
      return g.checked_time !== before.checked_time ? g : undefined;
    });
    expect(later.last_transferred_time).toBe(before.last_transferred_time);
    await zt.incoming.update({ zone_id: zoneId, name: ZONE, peers: [peerId], auto_refresh_seconds: 3600 });
  });

  it('resumes refreshing when the primary comes back', async () => {
    const zt = sdk.dns.zoneTransfers;
    await zt.incoming.update({ zone_id: zoneId, name: ZONE, peers: [peerId], auto_refresh_seconds: 1 });
    await stopKnot();
    await until('the failed refresh', async () => ((await zt.incoming.get({ zone_id: zoneId }) as { error?: string }).error ? true : undefined));
    expect((await dig(server.dnsPort!, `www.${ZONE}`, 'A')).answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.10`]);
    startKnot();
    await until('Knot back', async () => (serialOf(await dig(knotPort, ZONE, 'SOA')) ? true : undefined));
    await knotc('zone-begin', ZONE);
    await knotc('zone-set', ZONE, 'back', '300', 'TXT', '"again"');
    await knotc('zone-commit', ZONE);
    await until('the refresh after the return', async () => ((await dig(server.dnsPort!, `back.${ZONE}`, 'TXT')).answer.length ? true : undefined));
    expect((await zt.incoming.get({ zone_id: zoneId }) as { error?: string }).error).toBeUndefined();
  });

  it('another account (its key and its token) gets 404 7003 on the incoming routes', async () => {
    const other = await addUser(server, 'incoming-other@example.com');
    const otherToken = ((await other.sdk().user.tokens.create({ name: 'all', policies: [
      { effect: 'allow', permission_groups: [{ id: DNS_WRITE }], resources: { 'com.cloudflare.api.account.zone.*': '*' } },
    ] } as never)) as { value: string }).value;
    const asToken = { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${otherToken}` };
    const asKey = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    for (const headers of [asKey, asToken]) {
      for (const [method, p, body] of [
        ['GET', `/zones/${zoneId}/secondary_dns/incoming`, undefined],
        ['PUT', `/zones/${zoneId}/secondary_dns/incoming`, { name: ZONE, peers: [peerId], auto_refresh_seconds: 60 }],
        ['POST', `/zones/${zoneId}/secondary_dns/incoming`, { name: ZONE, peers: [peerId], auto_refresh_seconds: 60 }],
        ['DELETE', `/zones/${zoneId}/secondary_dns/incoming`, undefined],
        ['POST', `/zones/${zoneId}/secondary_dns/force_axfr`, undefined],
      ] as const) {
        const res = await api(server, method, p, body, headers);
        expect([res.status, res.body.errors[0]?.code], `${method} ${p}`).toEqual([404, 7003]);
        expect(JSON.stringify(res.body)).not.toContain(peerId);
        expect(JSON.stringify(res.body)).not.toContain('last_transferred_time');
      }
    }
    expect(await sdk.dns.zoneTransfers.incoming.get({ zone_id: zoneId })).toMatchObject({ peers: [peerId] });
    expect(await sdk.dns.zoneTransfers.incoming.delete({ zone_id: zoneId })).toEqual({ id: zoneId });
    const gone = await api(server, 'GET', `/zones/${zoneId}/secondary_dns/incoming`);
    expect([gone.status, gone.body.errors[0]?.code]).toEqual([400, 1293]);
  });
});
