/**
 * Records created through the v4 API (official SDK) are answered over DNS: every type with dig (UDP and TCP)
 * and kdig; updates and deletes show as soon as the API call returns; proxied records answer with the edge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { recordSamples } from '../api/record-samples.js';
import { dig } from './dig.js';

const ZONE = 'dns-types.example';
const A64 = 'A'.repeat(64);
const PGP = 'mDMEXEcE6RYJKwYBBAHaRw8BAQdArjWwk3FAqyiFbFBKT4TzXcVBqPTB3gmzlC/Ubn0w3Kw=';

/** kdig's presentation of each sample (the RFC presentation formats). */
const EXPECTED: Record<string, string> = {
  A: `a.${ZONE}. 300 IN A 192.0.2.1`,
  AAAA: `aaaa.${ZONE}. 300 IN AAAA 2001:db8::1`,
  CNAME: `www.${ZONE}. 300 IN CNAME target.example.net.`,
  MX: `${ZONE}. 300 IN MX 10 mx.example.net.`,
  OPENPGPKEY: `pgp.${ZONE}. 300 IN OPENPGPKEY ${PGP}`,
  PTR: `1.${ZONE}. 300 IN PTR host.example.net.`,
  TXT: `txt.${ZONE}. 300 IN TXT "hello world"`,
  CAA: `${ZONE}. 300 IN CAA 0 issue "letsencrypt.org"`,
  CERT: `cert.${ZONE}. 300 IN CERT 9 0 8 AQID`,
  DNSKEY: `${ZONE}. 300 IN DNSKEY 257 3 13 ${PGP}`,
  DS: `child.${ZONE}. 300 IN DS 2371 13 2 ${A64}`,
  HTTPS: `svc.${ZONE}. 300 IN HTTPS 1 . alpn=h3,h2`,
  LOC: `loc.${ZONE}. 300 IN LOC 37 46 46 N 122 23 35 W 0m 100m 0m 0m`,
  NAPTR: `naptr.${ZONE}. 300 IN NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp.${ZONE}.`,
  SMIMEA: `smimea.${ZONE}. 300 IN SMIMEA 3 0 1 ${A64}`,
  SRV: `_sip._tcp.${ZONE}. 300 IN SRV 10 5 5060 sip.example.net.`,
  SSHFP: `host.${ZONE}. 300 IN SSHFP 4 2 ${A64}`,
  SVCB: `_dns.${ZONE}. 300 IN SVCB 1 dns.example.net. alpn=h2`,
  TLSA: `_443._tcp.${ZONE}. 300 IN TLSA 3 1 1 ${A64}`,
  URI: `_http._tcp.${ZONE}. 300 IN URI 10 20 "http://example.com/"`,
};

/** dig prints a few types differently (mnemonics, quoting, decimals); the rest match once blanks are removed. */
const DIG_FORM: Record<string, string> = {
  CERT: `cert.${ZONE}. 300 IN CERT 9 0 RSASHA256 AQID`,
  HTTPS: `svc.${ZONE}. 300 IN HTTPS 1 . alpn="h3,h2"`,
  SVCB: `_dns.${ZONE}. 300 IN SVCB 1 dns.example.net. alpn="h2"`,
  LOC: `loc.${ZONE}. 300 IN LOC 37 46 46.000 N 122 23 35.000 W 0.00m 100m 0.00m 0.00m`,
};

const squash = (s: string) => s.replace(/\s+/g, '');

let server: TestServer;
let port: number;
let zoneId: string;

beforeAll(async () => {
  server = await startTestServer();
  port = server.dnsPort!;
  zoneId = await createZone(server, ZONE);
  await server.sdk().dns.dnssec.edit({ zone_id: zoneId, dnssec_multi_signer: true }); // DNSKEY records need it (1117)
});
afterAll(async () => { await server?.stop(); });

describe('DNS answers for records created through the API', () => {
  it('answers every type over UDP and TCP (dig) and kdig parses each', async () => {
    const sdk = server.sdk();
    const samples = recordSamples(ZONE).filter((s) => s.type !== 'NS');
    for (const s of samples) await sdk.dns.records.create({ zone_id: zoneId, type: s.type, ...s.body } as never);
    for (const s of samples) {
      const want = EXPECTED[s.type]!;
      const k = await dig(port, s.name, s.type, { tool: 'kdig' });
      expect(k.status, s.type).toBe('NOERROR');
      expect(k.answer, s.type).toEqual([want]);
      for (const tcp of [false, true]) {
        const d = await dig(port, s.name, s.type, { tcp });
        expect(d.status, s.type).toBe('NOERROR');
        expect(d.flags, s.type).toContain('aa');
        expect(d.answer.map(squash), `${s.type} tcp=${tcp}`).toEqual([squash(DIG_FORM[s.type] ?? want)]);
      }
    }
  });

  it('shows creates, updates and deletes as soon as the API call returns', async () => {
    const sdk = server.sdk();
    const rec = await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'live', content: '198.51.100.1', ttl: 120 } as never);
    expect((await dig(port, `live.${ZONE}`, 'A')).answer).toEqual([`live.${ZONE}. 120 IN A 198.51.100.1`]);
    await sdk.dns.records.edit(rec.id, { zone_id: zoneId, type: 'A', name: 'live', content: '198.51.100.2' } as never);
    expect((await dig(port, `live.${ZONE}`, 'A', { tcp: true })).answer).toEqual([`live.${ZONE}. 120 IN A 198.51.100.2`]);
    await sdk.dns.records.delete(rec.id, { zone_id: zoneId });
    const gone = await dig(port, `live.${ZONE}`, 'A');
    expect(gone.status).toBe('NXDOMAIN');
    expect(gone.authority[0]).toMatch(new RegExp(`^${ZONE}\\. 1800 IN SOA ns1\\.`));
  });

  it('grows the SOA serial on every change', async () => {
    const serial = async () => Number((await dig(port, ZONE, 'SOA')).answer[0]!.split(' ')[6]);
    const before = await serial();
    await server.sdk().dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'serial', content: 'x' } as never);
    expect(await serial()).toBeGreaterThan(before);
  });

  it('answers proxied records with the edge addresses, never the origin', async () => {
    await server.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: 'proxied', content: '198.51.100.9', proxied: true } as never);
    const a = await dig(port, `proxied.${ZONE}`, 'A');
    expect(a.answer.map((l) => l.split(' ').pop())).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(a.raw).not.toContain('198.51.100.9');
    const aaaa = await dig(port, `proxied.${ZONE}`, 'AAAA');
    expect(aaaa.answer.map((l) => l.split(' ').pop())).toEqual(['2001:db8::10', '2001:db8::11']);
  });

  it('refers delegations, refuses other zones, NXDOMAIN with SOA', async () => {
    await server.sdk().dns.records.create({ zone_id: zoneId, type: 'NS', name: 'delegated', content: 'ns1.example.net' } as never);
    const ref = await dig(port, `www.delegated.${ZONE}`, 'A');
    expect(ref.flags).not.toContain('aa');
    expect(ref.authority).toEqual([`delegated.${ZONE}. 300 IN NS ns1.example.net.`]);
    expect((await dig(port, 'example.org', 'A')).status).toBe('REFUSED');
    expect((await dig(port, `nope.${ZONE}`, 'TXT')).status).toBe('NXDOMAIN');
  });

  it('sets TC on UDP when the answer does not fit and answers fully over TCP', async () => {
    const sdk = server.sdk();
    for (let i = 0; i < 40; i++) {
      await sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'big', content: `"${String(i).padStart(2, '0')}${'x'.repeat(60)}"` } as never);
    }
    const udp = await dig(port, `big.${ZONE}`, 'TXT', { extra: ['+ignore', '+bufsize=1232'] });
    expect(udp.flags).toContain('tc');
    const tcp = await dig(port, `big.${ZONE}`, 'TXT', { tcp: true });
    expect(tcp.answer).toHaveLength(40);
  });

  it('transfers the zone by AXFR over TCP, SOA first and last', async () => {
    const { stdout } = await import('node:child_process').then((cp) => new Promise<{ stdout: string }>((resolve, reject) => {
      cp.execFile('dig', ['@127.0.0.1', '-p', String(port), ZONE, 'AXFR', '+nocmd', '+nostats'], (err, out) => (err ? reject(err) : resolve({ stdout: out })));
    }));
    const lines = stdout.split('\n').filter((l) => l && !l.startsWith(';'));
    expect(lines[0]).toMatch(/\tSOA\t/);
    expect(lines[lines.length - 1]).toMatch(/\tSOA\t/);
    expect(stdout).toContain(`txt.${ZONE}.`);
    expect(lines.length).toBeGreaterThan(60);
  });
});
