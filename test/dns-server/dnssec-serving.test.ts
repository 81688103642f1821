/**
 * What a signing zone serves, read with dig, delv, ldns-verify-zone and unbound: compact denial on the wire
 * (NOERROR, NSEC to \000.<name> with NXNAME), the DO bit echoed, unsigned answers without DO, signed
 * referrals (DS, or the NSEC proving there is none), DS questions for a child's apex answered by its parent,
 * signed AXFR that ldns-verify-zone accepts in both NSEC modes, delv's validation, a DS chain from a parent to
 * a child both in Stratus, and key rollover by disabling and re-enabling.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { dig } from './dig.js';
import { startUnbound } from './unbound.js';

const run = promisify(execFile);
const ZONE = 'serve-signed.example';
let server: TestServer;
let zoneId: string;
let port: number;
let tmp: string;

const rr = (zone: string, r: Record<string, unknown>) => server.sdk().dns.records.create({ zone_id: zone, ttl: 300, ...r } as never);
const signedDig = (name: string, type: string, extra: string[] = []) => dig(port, name, type, { extra: ['+dnssec', ...extra] });

beforeAll(async () => {
  server = await startTestServer();
  port = server.dnsPort!;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dnssec-'));
  zoneId = await createZone(server, ZONE);
  await rr(zoneId, { type: 'A', name: `www.${ZONE}`, content: '192.0.2.1' });
  await rr(zoneId, { type: 'A', name: `*.w.${ZONE}`, content: '192.0.2.2' });
  await rr(zoneId, { type: 'A', name: `a.b.c.${ZONE}`, content: '192.0.2.3' });
  await rr(zoneId, { type: 'NS', name: `insecure.${ZONE}`, content: `ns.insecure.${ZONE}` });
  await rr(zoneId, { type: 'A', name: `ns.insecure.${ZONE}`, content: '192.0.2.53' });
  await rr(zoneId, { type: 'NS', name: `secure.${ZONE}`, content: 'ns.example.net' });
  await rr(zoneId, { type: 'DS', name: `secure.${ZONE}`, data: { key_tag: 1, algorithm: 13, digest_type: 2, digest: 'AB'.repeat(32) } });
  await server.sdk().dns.dnssec.edit({ zone_id: zoneId, status: 'active' });
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('signed answers on the wire', () => {
  it('compact NXDOMAIN and NODATA with DO (UDP and TCP); plain NXDOMAIN without', async () => {
    for (const tcp of [false, true]) {
      const nx = await signedDig(`nope.${ZONE}`, 'A', tcp ? ['+tcp'] : []);
      expect(nx.status).toBe('NOERROR');
      expect(nx.raw).toMatch(/; EDNS: version: 0, flags: do;/);
      expect(nx.authority).toContainEqual(`nope.${ZONE}. 1800 IN NSEC \\000.nope.${ZONE}. RRSIG NSEC TYPE128`);
      expect(nx.authority.some((l) => l.startsWith(`${ZONE}. 1800 IN RRSIG SOA 13 2 1800`))).toBe(true);
    }
    const nodata = await signedDig(`www.${ZONE}`, 'TXT');
    expect(nodata.authority).toContainEqual(`www.${ZONE}. 1800 IN NSEC \\000.www.${ZONE}. A RRSIG NSEC`);
    const ent = await signedDig(`c.${ZONE}`, 'A');
    expect(ent.authority).toContainEqual(`c.${ZONE}. 1800 IN NSEC \\000.c.${ZONE}. RRSIG NSEC`);
    const plain = await dig(port, `nope.${ZONE}`, 'A');
    expect(plain.status).toBe('NXDOMAIN');
    expect(plain.raw).not.toContain('RRSIG');
    expect((await dig(port, ZONE, 'DNSKEY')).answer).toHaveLength(1);
  });

  it('RRSIG and NSEC questions answered as Knot answers them: one RRSIG, the name\'s NSEC; NSEC3 is NODATA', async () => {
    const a = await signedDig(`www.${ZONE}`, 'A');
    for (const extra of [[], ['+tcp']]) {
      const sig = await signedDig(`www.${ZONE}`, 'RRSIG', extra);
      expect(sig.status).toBe('NOERROR');
      expect(sig.flags).toContain('aa');
      expect(sig.answer).toEqual(a.answer.filter((l) => l.includes(' RRSIG A ')));
      expect(sig.authority).toEqual([]);
    }
    expect((await dig(port, `www.${ZONE}`, 'RRSIG')).answer).toEqual(a.answer.filter((l) => l.includes(' RRSIG A ')));
    const apex = await signedDig(ZONE, 'RRSIG');
    expect(apex.answer).toHaveLength(1);
    expect(apex.answer[0]).toMatch(new RegExp(`^${ZONE.replace('.', '\\.')}\\. \\d+ IN RRSIG (NS|SOA) 13 2 `));
    const nxSig = await signedDig(`nope.${ZONE}`, 'RRSIG');
    expect(nxSig.answer).toEqual([]);
    expect(nxSig.authority).toContainEqual(`nope.${ZONE}. 1800 IN NSEC \\000.nope.${ZONE}. RRSIG NSEC TYPE128`);
    const referral = await signedDig(`insecure.${ZONE}`, 'RRSIG');
    expect(referral.flags).not.toContain('aa');
    expect(referral.answer).toEqual([]);

    const nsecQ = await signedDig(`www.${ZONE}`, 'NSEC');
    expect(nsecQ.answer[0]).toBe(`www.${ZONE}. 1800 IN NSEC \\000.www.${ZONE}. A RRSIG NSEC`);
    expect(nsecQ.answer[1]).toMatch(/ IN RRSIG NSEC 13 3 1800 /);
    expect(nsecQ.answer).toHaveLength(2);
    expect((await dig(port, `www.${ZONE}`, 'NSEC')).answer).toEqual([`www.${ZONE}. 1800 IN NSEC \\000.www.${ZONE}. A RRSIG NSEC`]);
    const nsec3Q = await signedDig(`www.${ZONE}`, 'NSEC3');
    expect(nsec3Q.answer).toEqual([]);
    expect(nsec3Q.authority).toContainEqual(`www.${ZONE}. 1800 IN NSEC \\000.www.${ZONE}. A RRSIG NSEC`);
    for (const name of [`www.${ZONE}`, `nope.${ZONE}`]) expect((await signedDig(name, 'TYPE128')).status).toBe('FORMERR'); // NXNAME, RFC 9824 §3.5
  });

  it('wildcard answers carry the wildcard labels count and a covering NSEC', async () => {
    const w = await signedDig(`x.w.${ZONE}`, 'A');
    expect(w.answer).toContainEqual(expect.stringMatching(new RegExp(`^x\\.w\\.${ZONE.replace('.', '\\.')}\\. 300 IN RRSIG A 13 3 300 `)));
    expect(w.authority.some((l) => / IN NSEC x\\000\.w\./.test(l))).toBe(true);
  });

  it('referrals: NS and glue unsigned, DS signed or its absence proven; DS at a child apex answered by the parent', async () => {
    const insecure = await signedDig(`host.insecure.${ZONE}`, 'A');
    expect(insecure.flags).not.toContain('aa');
    expect(insecure.authority).toContainEqual(`insecure.${ZONE}. 1800 IN NSEC \\000.insecure.${ZONE}. NS RRSIG NSEC`);
    expect(insecure.authority.filter((l) => l.includes('RRSIG NS '))).toEqual([]);
    expect(insecure.additional.filter((l) => l.includes('RRSIG'))).toEqual([]);
    const secure = await signedDig(`host.secure.${ZONE}`, 'A');
    expect(secure.authority.some((l) => l.includes(`secure.${ZONE}. 300 IN RRSIG DS 13 3 300`))).toBe(true);

    const childId = await createZone(server, `secure.${ZONE}`);
    await rr(childId, { type: 'A', name: `host.secure.${ZONE}`, content: '192.0.2.9' });
    const ds = await signedDig(`secure.${ZONE}`, 'DS');
    expect(ds.flags).toContain('aa');
    expect(ds.answer.some((l) => l.startsWith(`secure.${ZONE}. 300 IN DS 1 13 2`))).toBe(true);
  });

  it('AXFR carries DNSKEY, RRSIG and a full NSEC or NSEC3 chain that ldns-verify-zone accepts; delv validates', async () => {
    const { ds } = await server.sdk().dns.dnssec.get({ zone_id: zoneId });
    for (const nsec3 of [false, true]) {
      await server.sdk().dns.dnssec.edit({ zone_id: zoneId, dnssec_use_nsec3: nsec3 });
      const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+nocmd', '+nostats', '+onesoa', ZONE, 'AXFR']);
      for (const type of ['DNSKEY', 'RRSIG', nsec3 ? 'NSEC3' : 'NSEC', 'CDS', 'CDNSKEY']) expect(stdout, type).toMatch(new RegExp(`\\sIN\\s+${type}\\s`));
      if (nsec3) expect(stdout).toMatch(/\sIN\s+NSEC3PARAM\s+1 0 0 -/);
      if (nsec3) { // NSEC questions in NSEC3 mode: NODATA proven by the name's NSEC3, no NSEC anywhere
        const q = await signedDig(`www.${ZONE}`, 'NSEC');
        expect([q.status, q.answer]).toEqual(['NOERROR', []]);
        expect(q.authority.some((l) => / IN NSEC3 1 0 0 - /.test(l))).toBe(true);
        expect([...q.answer, ...q.authority].filter((l) => / IN NSEC /.test(l))).toEqual([]);
      }
      const file = path.join(tmp, `axfr-${nsec3}.zone`);
      fs.writeFileSync(file, stdout);
      const verified = await run('ldns-verify-zone', ['-V', '3', file]).catch((err: { stdout: string; stderr: string }) => { throw new Error(`${err.stdout}\n${err.stderr}\n${stdout}`); });
      expect(verified.stdout + verified.stderr).toMatch(/Zone is verified and complete/);
    }
    const [, , , , tag, alg, type, digest] = ds!.split(' ');
    const anchors = path.join(tmp, 'anchors.conf');
    fs.writeFileSync(anchors, `trust-anchors { "${ZONE}." static-ds ${tag} ${alg} ${type} "${digest}"; };\n`);
    for (const [name, type] of [[`www.${ZONE}`, 'A'], [`x.w.${ZONE}`, 'A'], [`nope.${ZONE}`, 'A'], [`www.${ZONE}`, 'MX']]) {
      const { stdout } = await run('delv', ['@127.0.0.1', '-p', String(port), '-a', anchors, `+root=${ZONE}`, name!, type!]).catch((err: { stdout: string; stderr: string }) => { throw new Error(`delv ${name} ${type}: ${err.stdout}\n${err.stderr}`); });
      expect(stdout, `${name} ${type}`).toMatch(/(^|; |negative response, )fully validated/m);
    }
  });
});

describe('chains and rollover', () => {
  it('a parent and a child both in Stratus: the parent\'s DS chains to the child\'s key (unbound sets AD); an unsigned child is insecure (NSEC and NSEC3 in the parent)', async () => {
    const parentId = await createZone(server, 'chain.example');
    const kidId = await createZone(server, 'kid.chain.example');
    const plainId = await createZone(server, 'plain.chain.example');
    await rr(kidId, { type: 'A', name: 'www.kid.chain.example', content: '192.0.2.10' });
    await rr(plainId, { type: 'A', name: 'www.plain.chain.example', content: '192.0.2.11' });
    const parent = await server.sdk().dns.dnssec.edit({ zone_id: parentId, status: 'active' });
    const kid = await server.sdk().dns.dnssec.edit({ zone_id: kidId, status: 'active' });
    await rr(parentId, { type: 'NS', name: 'kid.chain.example', content: 'ns1.stratus.invalid' });
    await rr(parentId, { type: 'DS', name: 'kid.chain.example', data: { key_tag: kid.key_tag, algorithm: 13, digest_type: 2, digest: kid.digest } });
    await rr(parentId, { type: 'NS', name: 'plain.chain.example', content: 'ns1.stratus.invalid' });
    expect((await server.sdk().dns.dnssec.get({ zone_id: kidId })).status).toBe('active');
    for (const nsec3 of [false, true]) {
      await server.sdk().dns.dnssec.edit({ zone_id: parentId, dnssec_use_nsec3: nsec3 });
      const unbound = await startUnbound(port, ['chain.example', 'kid.chain.example', 'plain.chain.example'], [parent.ds!]);
      try {
        const secure = await dig(unbound.port, 'www.kid.chain.example', 'A', { extra: ['+rec', '+dnssec'] });
        expect(secure.status, unbound.log()).toBe('NOERROR');
        expect(secure.flags, unbound.log()).toContain('ad');
        const insecure = await dig(unbound.port, 'www.plain.chain.example', 'A', { extra: ['+rec', '+dnssec'] });
        expect(insecure.status, unbound.log()).toBe('NOERROR');
        expect(insecure.flags).not.toContain('ad');
      } finally {
        await unbound.stop();
      }
    }
  });

  it('disabling and enabling again makes a new key; the old key\'s signatures are no longer served', async () => {
    const zone = await createZone(server, 'roll.example');
    await rr(zone, { type: 'A', name: 'www.roll.example', content: '192.0.2.20' });
    const first = await server.sdk().dns.dnssec.edit({ zone_id: zone, status: 'active' });
    const tagOf = (lines: string[]) => lines.filter((l) => l.includes(' RRSIG ')).map((l) => Number(l.split(' ')[10]));
    expect(tagOf((await signedDig('www.roll.example', 'A')).answer)).toEqual([first.key_tag]);
    await server.sdk().dns.dnssec.edit({ zone_id: zone, status: 'disabled' });
    const off = await signedDig('www.roll.example', 'A');
    expect(off.raw).not.toContain('RRSIG');
    expect((await signedDig('roll.example', 'DNSKEY')).answer).toEqual([]);
    const second = await server.sdk().dns.dnssec.edit({ zone_id: zone, status: 'active' });
    expect(second.public_key).not.toBe(first.public_key);
    const keys = (await signedDig('roll.example', 'DNSKEY')).answer.filter((l) => l.split(' ')[3] === 'DNSKEY');
    expect(keys.map((l) => l.split(' ').slice(7).join(''))).toEqual([second.public_key]);
    const again = await signedDig('www.roll.example', 'A');
    expect(tagOf(again.answer)).toEqual([second.key_tag]);
  });

  it('multi-signer: the zone\'s own DNSKEY records join the served DNSKEY set only with dnssec_multi_signer', async () => {
    const zone = await createZone(server, 'multi.example');
    const other = 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==';
    const mine = await server.sdk().dns.dnssec.edit({ zone_id: zone, status: 'active', dnssec_multi_signer: true });
    await rr(zone, { type: 'DNSKEY', name: 'multi.example', data: { flags: 256, protocol: 3, algorithm: 13, public_key: other } });
    const keys = async () => (await signedDig('multi.example', 'DNSKEY')).answer.filter((l) => l.split(' ')[3] === 'DNSKEY').map((l) => l.split(' ').slice(7).join('')).sort();
    expect(await keys()).toEqual([mine.public_key, other].sort());
    await server.sdk().dns.dnssec.edit({ zone_id: zone, dnssec_multi_signer: false });
    expect(await keys()).toEqual([mine.public_key]);
  });
});
