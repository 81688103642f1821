/**
 * Knot DNS (`knotd`) and BIND (`named`) as TSIG secondaries of a zone with outgoing settings (peers with keys,
 * set through the official SDK): each transfers the zone signed with its own key, takes later API changes after
 * Stratus's signed NOTIFY by IXFR (its log says so), and a wrong key, an unknown key, a wrong time and an
 * unsigned request are refused as RFC 8945 says.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig, type DigResult } from './dig.js';
import { freePort } from './ports.js';
import { findTsig, ResponseVerifier, signRequest, TSIG_ERROR, type TsigKey } from '../../src/dns/tsig.js';
import { encodeMessage } from '../../src/dns/wire/message.js';
import { Writer } from '../../src/dns/wire/writer.js';
import { TYPE } from '../../src/dns/wire/constants.js';
import { knotConfigHead } from './knot.js';
import { untilDefined } from '../helpers/until.js';

const ZONE = 'tsig-secondaries.example';
const KNOT_SECRET = Buffer.from('knot-secondary-secret-0123456789abcdef').toString('base64');
const BIND_SECRET = Buffer.from('bind-secondary-secret-0123456789abcdef').toString('base64');
let server: TestServer;
let zoneId: string;
let dir: string;
let knot: ChildProcess | undefined;
let named: ChildProcess | undefined;
let knotPort: number;
let bindPort: number;
let knotLog = '';
let bindLog = '';

/** Polls `fn` until it gives a value (test/helpers/until.ts). */
const until = <T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> =>
  untilDefined(what, fn, { ms, pollMs: 100, detail: () => `--- knot\n${knotLog}\n--- bind\n${bindLog}` });

const serialOf = (r: DigResult) => (r.answer[0] ? Number(r.answer[0].split(' ')[6]) : undefined);

beforeAll(async () => {
  knotPort = await freePort();
  bindPort = await freePort();
  // Knot and BIND listen on loopback: the operator allows it as a peer address.
  server = await startTestServer({ flags: { 'transfer-peer-allow': '127.0.0.0/8' } });
  const sdk = server.sdk();
  const account = await accountId(server);
  zoneId = await createZone(server, ZONE);
  for (const r of [
    { type: 'A', name: '@', content: '192.0.2.1' },
    { type: 'A', name: 'www', content: '192.0.2.2' },
    { type: 'TXT', name: 'txt', content: '"first"' },
    { type: 'MX', name: '@', content: `mail.${ZONE}`, priority: 10 },
  ]) await sdk.dns.records.create({ zone_id: zoneId, ...r } as never);
  const zt = sdk.dns.zoneTransfers;
  const knotKey = await zt.tsigs.create({ account_id: account, name: 'knot-key.', algo: 'hmac-sha256.', secret: KNOT_SECRET });
  const bindKey = await zt.tsigs.create({ account_id: account, name: 'bind-key.', algo: 'hmac-sha512.', secret: BIND_SECRET });
  const knotPeer = await zt.peers.create({ account_id: account, name: 'knot' });
  await zt.peers.update(knotPeer.id, { account_id: account, name: 'knot', ip: '127.0.0.1', port: knotPort, ixfr_enable: true, tsig_id: knotKey.id });
  const bindPeer = await zt.peers.create({ account_id: account, name: 'bind' });
  await zt.peers.update(bindPeer.id, { account_id: account, name: 'bind', ip: '127.0.0.1', port: bindPort, ixfr_enable: true, tsig_id: bindKey.id });
  await zt.outgoing.create({ zone_id: zoneId, name: `${ZONE}.`, peers: [knotPeer.id, bindPeer.id] });
  expect(await zt.outgoing.enable({ zone_id: zoneId })).toBe('Enabled');

  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-tsig-secondaries-'));
  fs.mkdirSync(path.join(dir, 'bind'));
  fs.mkdirSync(path.join(dir, 'db')); // Knot's journal lives there: IXFR changes are stored in it
  fs.writeFileSync(path.join(dir, 'knot.conf'), `${knotConfigHead(dir, knotPort)}key:
  - id: knot-key
    algorithm: hmac-sha256
    secret: ${KNOT_SECRET}
remote:
  - id: stratus
    address: 127.0.0.1@${server.dnsPort}
    key: knot-key
acl:
  - id: from_stratus
    address: 127.0.0.1
    key: knot-key
    action: notify
template:
  - id: default
    storage: "${dir}/zones"
zone:
  - domain: ${ZONE}
    master: stratus
    acl: from_stratus
`);
  fs.writeFileSync(path.join(dir, 'named.conf'), `
options {
  directory "${dir}/bind";
  pid-file none;
  listen-on port ${bindPort} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
};
key "bind-key" { algorithm hmac-sha512; secret "${BIND_SECRET}"; };
zone "${ZONE}" {
  type secondary;
  primaries { 127.0.0.1 port ${server.dnsPort} key "bind-key"; };
  file "${dir}/bind/${ZONE}.db";
  allow-notify { key "bind-key"; };
  request-ixfr yes;
};
`);
  knot = spawn('knotd', ['-c', path.join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  knot.stderr!.on('data', (d: Buffer) => { knotLog += d.toString(); });
  named = spawn('named', ['-g', '-c', path.join(dir, 'named.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  named.stderr!.on('data', (d: Buffer) => { bindLog += d.toString(); });
}, 60_000);

afterAll(async () => {
  for (const p of [knot, named]) {
    if (p && p.exitCode === null) {
      p.kill('SIGTERM');
      await new Promise((r) => p.once('exit', r));
    }
  }
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** An AXFR over TCP signed with `key` (at `timeSigned`); the messages and the verifier's verdict on each. */
async function signedAxfr(key: TsigKey, timeSigned?: number): Promise<{ messages: Buffer[]; checks: Array<ReturnType<ResponseVerifier['check']>> }> {
  const w = new Writer(512);
  encodeMessage(w, { id: 4242, qr: false, opcode: 0, aa: false, rd: false, rcode: 0, question: { name: ZONE, type: TYPE.AXFR, klass: 1 }, answers: [], authorities: [], additionals: [] });
  const req = signRequest(w.result(), key, timeSigned !== undefined ? { timeSigned } : {});
  const verifier = new ResponseVerifier(key, req.mac);
  const messages: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    const sock = net.connect(server.dnsPort!, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let soas = 0;
    sock.on('connect', () => { const h = Buffer.alloc(2); h.writeUInt16BE(req.message.length); sock.write(Buffer.concat([h, req.message])); });
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const m = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + m.length);
        messages.push(Buffer.from(m));
        const rcode = m[3]! & 0xf;
        // Count SOAs in the answer section by looking for the SOA type after the owner (rough, enough to end).
        soas += m.readUInt16BE(6) > 0 && m.includes(Buffer.from([0, 6, 0, 1])) ? 1 : 0;
        if (rcode !== 0 || soas >= 2 || (messages.length === 1 && m.readUInt16BE(6) > 1 && m.lastIndexOf(Buffer.from([0, 6, 0, 1])) !== m.indexOf(Buffer.from([0, 6, 0, 1])))) { sock.end(); resolve(); return; }
      }
    });
    sock.on('error', reject);
    sock.on('close', () => resolve());
  });
  return { messages, checks: messages.map((m) => verifier.check(m)) };
}

let firstTransferred = '';
/** DNS Read (production's permission group id). */
const DNS_READ = '82e64a83756745bbbb1c9c2701bf816b';

async function lastTransferred(): Promise<string | undefined> {
  return (await server.sdk().dns.zoneTransfers.outgoing.get({ zone_id: zoneId })).last_transferred_time;
}

/** Waits until the outgoing settings show a last_transferred_time later than `after` ('' for any); returns it. */
async function transferredAfter(after: string): Promise<string> {
  return until('last_transferred_time', async () => {
    const t = await lastTransferred();
    return t && (after === '' || Date.parse(t) > Date.parse(after)) ? t : undefined;
  });
}

describe('Knot and BIND as TSIG secondaries', () => {
  it('both transfer the zone signed with their own key', async () => {
    const primary = serialOf(await dig(server.dnsPort!, ZONE, 'SOA'))!;
    for (const port of [knotPort, bindPort]) {
      await until(`the transfer to ${port}`, async () => (serialOf(await dig(port, ZONE, 'SOA')) === primary ? true : undefined));
      expect((await dig(port, `txt.${ZONE}`, 'TXT')).answer).toEqual([`txt.${ZONE}. 300 IN TXT "first"`]);
      expect((await dig(port, `www.${ZONE}`, 'A')).answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.2`]);
    }
    // Production's last_transferred_time: recorded once a transfer is made to its end.
    firstTransferred = await transferredAfter('');
  });

  it('serve API changes after a signed NOTIFY, taken by IXFR', async () => {
    const sdk = server.sdk();
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'later', content: '203.0.113.77' } as never);
    const txt = (await sdk.dns.records.list({ zone_id: zoneId, type: 'TXT' } as never)).result[0]!;
    await sdk.dns.records.update(txt.id, { zone_id: zoneId, type: 'TXT', name: `txt.${ZONE}`, content: '"second"' } as never);
    const primary = serialOf(await dig(server.dnsPort!, ZONE, 'SOA'))!;
    for (const port of [knotPort, bindPort]) {
      await until(`the change on ${port}`, async () => (serialOf(await dig(port, ZONE, 'SOA')) === primary ? true : undefined));
      expect((await dig(port, `later.${ZONE}`, 'A')).answer).toEqual([`later.${ZONE}. 300 IN A 203.0.113.77`]);
      expect((await dig(port, `txt.${ZONE}`, 'TXT')).answer).toEqual([`txt.${ZONE}. 300 IN TXT "second"`]);
    }
    // Knot took the changes by IXFR into its journal, never falling back to AXFR; BIND wrote them to its journal.
    expect(knotLog).toMatch(/IXFR, incoming, remote [^\n]*finished/);
    expect(knotLog).not.toMatch(/fallback to AXFR/);
    expect(knotLog).toMatch(new RegExp(`zone updated[^\n]*-> ${primary}`));
    expect(fs.existsSync(path.join(dir, 'bind', `${ZONE}.db.jnl`))).toBe(true);
    expect(bindLog).toMatch(new RegExp(`transferred serial ${primary}: TSIG 'bind-key'`));
    await transferredAfter(firstTransferred);
  });

  it('refuses a wrong secret (BADSIG), an unknown key (BADKEY), an unsigned request and a wrong time (BADTIME)', async () => {
    const wrong = await dig(server.dnsPort!, ZONE, 'AXFR', { extra: ['-y', `hmac-sha256:knot-key:${Buffer.from('not the secret').toString('base64')}`] });
    expect(wrong.raw).toMatch(/BADSIG/);
    expect(wrong.raw).not.toContain('192.0.2.2');
    const unknown = await dig(server.dnsPort!, ZONE, 'AXFR', { extra: ['-y', `hmac-sha256:nobody:${KNOT_SECRET}`] });
    expect(unknown.raw).toMatch(/BADKEY/);
    const unsigned = await dig(server.dnsPort!, ZONE, 'AXFR');
    expect(unsigned.raw).toMatch(/Transfer failed|REFUSED/);
    expect(unsigned.raw).not.toContain('192.0.2.2');

    const key: TsigKey = { name: 'knot-key', algorithm: 'hmac-sha256', secret: Buffer.from(KNOT_SECRET, 'base64') };
    const late = await signedAxfr(key, Math.floor(Date.now() / 1000) - 3600);
    expect(late.messages).toHaveLength(1);
    expect(late.messages[0]![3]! & 0xf).toBe(9); // NOTAUTH
    const rec = findTsig(late.messages[0]!)!;
    expect(rec.error).toBe(TSIG_ERROR.BADTIME);
    expect(Math.abs(rec.other.readUIntBE(0, 6) - Date.now() / 1000)).toBeLessThan(30); // the server's time
    expect(late.checks[0]).toEqual({ error: TSIG_ERROR.BADTIME }); // signed: the client can trust the error

    // Refused transfers are not transfers: last_transferred_time stays before them (the times written are those
    // of the transfers' ends, whenever the write lands).
    const refusedAt = Date.now();
    await dig(server.dnsPort!, ZONE, 'AXFR', { extra: ['-y', `hmac-sha256:knot-key:${Buffer.from('not the secret').toString('base64')}`] });
    await dig(server.dnsPort!, ZONE, 'AXFR');
    expect(Date.parse((await lastTransferred())!)).toBeLessThanOrEqual(refusedAt);
    const good = await signedAxfr(key);
    expect(good.messages.length).toBeGreaterThan(0);
    expect(good.checks.every((c) => c === 'signed')).toBe(true);
    await transferredAfter(new Date(refusedAt).toISOString());
  });

  it('shows another account nothing of the outgoing settings or their last transfer (404 7003, its key and its token)', async () => {
    const other = await addUser(server, 'outgoing-other@example.com');
    const otherToken = ((await other.sdk().user.tokens.create({ name: 'all', policies: [
      { effect: 'allow', permission_groups: [{ id: DNS_READ }], resources: { 'com.cloudflare.api.account.zone.*': '*' } },
    ] } as never)) as { value: string }).value;
    for (const headers of [{ 'x-auth-email': other.email, 'x-auth-key': other.key }, { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${otherToken}` }]) {
      for (const p of [`/zones/${zoneId}/secondary_dns/outgoing`, `/zones/${zoneId}/secondary_dns/outgoing/status`]) {
        const res = await api(server, 'GET', p, undefined, headers);
        expect([res.status, res.body.errors[0]?.code], p).toEqual([404, 7003]);
        expect(JSON.stringify(res.body)).not.toContain('last_transferred_time');
      }
    }
  });

  it('sign every message of a multi-message transfer: a 900-record change reaches both by IXFR, and an AXFR verifies', async () => {
    const sdk = server.sdk();
    await sdk.dns.records.batch({ zone_id: zoneId, posts: Array.from({ length: 900 }, (_, i) => ({ type: 'TXT', name: `bulk-${i}`, content: `"bulk record number ${i} with some padding text"` })) } as never);
    const primary = serialOf(await dig(server.dnsPort!, ZONE, 'SOA'))!;
    for (const port of [knotPort, bindPort]) {
      await until(`the bulk change on ${port}`, async () => (serialOf(await dig(port, ZONE, 'SOA')) === primary ? true : undefined));
      expect((await dig(port, `bulk-899.${ZONE}`, 'TXT')).answer).toEqual([`bulk-899.${ZONE}. 300 IN TXT "bulk record number 899 with some padding text"`]);
    }
    expect(knotLog).not.toMatch(/fallback to AXFR/);
    expect(bindLog).toMatch(new RegExp(`transferred serial ${primary}: TSIG 'bind-key'`));
    const key: TsigKey = { name: 'knot-key', algorithm: 'hmac-sha256', secret: Buffer.from(KNOT_SECRET, 'base64') };
    const axfr = await signedAxfr(key);
    expect(axfr.messages.length).toBeGreaterThan(2);
    expect(axfr.checks).toEqual(axfr.messages.map(() => 'signed'));
  });
});
