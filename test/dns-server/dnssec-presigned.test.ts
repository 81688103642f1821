/**
 * Pre-signed zones (`dnssec_presigned`): a zone signed offline by ldns-signzone (NSEC, and NSEC3 with salt and
 * iterations), imported through the API's zone import, served with its own signatures: unbound, with the DS of
 * the offline key as trust anchor, sets AD for positive, wildcard, CNAME, NODATA, empty non-terminal and
 * NXDOMAIN answers, and refuses a record added without the signer's signature (SERVFAIL); no signature without DO; the AXFR carries the signed zone, which ldns-verify-zone accepts.
 * The records are refused while the zone is not pre-signed (1118), and a second user's key and token touch
 * neither the zone's DNSSEC settings nor its records.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig } from './dig.js';
import { startUnbound, type Unbound } from './unbound.js';

const run = promisify(execFile);
const DNS_READ = '82e64a83756745bbbb1c9c2701bf816b';
const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';

let server: TestServer;
let tmp: string;
let unbound: Unbound;
const zones: Record<string, { id: string; ds: string; signed: string; sign(serial: number): Promise<string> }> = {};

/** The zone file ldns-signzone signs (the apex NS and SOA are the signer's, served as they are). */
function zoneText(zone: string, serial: number): string {
  return [
    `$ORIGIN ${zone}.`, '$TTL 300',
    `@ IN SOA ns1.${zone}. hostmaster.${zone}. ${serial} 7200 3600 1209600 300`,
    `@ IN NS ns1.${zone}.`, 'ns1 IN A 192.0.2.53', '@ IN TXT "v=spf1 -all"',
    'www IN A 192.0.2.1', 'www IN AAAA 2001:db8::1', 'c1 IN CNAME www', '*.wild IN A 192.0.2.3', 'deep.ent IN A 192.0.2.4',
    'sub IN NS ns.elsewhere.example.', '',
  ].join('\n');
}

/** Signs `zone` offline with a new ECDSA P-256 key: the key's DS line and a signer for any serial. */
async function offlineSigner(zone: string, nsec3: boolean): Promise<{ ds: string; sign(serial: number): Promise<string> }> {
  const dir = fs.mkdtempSync(path.join(tmp, `${zone}-`));
  const key = (await run('ldns-keygen', ['-a', 'ECDSAP256SHA256', '-k', zone], { cwd: dir })).stdout.trim();
  const ds = (await run('ldns-key2ds', ['-n', '-2', `${key}.key`], { cwd: dir })).stdout.trim().split(/\s+/);
  return {
    ds: `${zone}. IN DS ${ds.slice(4).join(' ')}`,
    async sign(serial) {
      fs.writeFileSync(path.join(dir, 'zone'), zoneText(zone, serial));
      await run('ldns-signzone', [...(nsec3 ? ['-n', '-s', 'ab12', '-t', '2'] : []), '-f', 'zone.signed', 'zone', key], { cwd: dir });
      return fs.readFileSync(path.join(dir, 'zone.signed'), 'utf8');
    },
  };
}

const lineCount = (text: string, type?: string) => text.split('\n').filter((l) => new RegExp(`\\sIN\\s+${type ?? '\\S+'}\\s`).test(l)).length;

/** The API's zone import (as `curl --form file=@…`), with the first user's key unless `headers` say otherwise. */
async function importZone(zoneId: string, text: string, headers: Record<string, string> = { 'x-auth-email': server.email, 'x-auth-key': server.key }) {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/plain' }), 'zone.txt');
  const res = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/import`, { method: 'POST', headers, body: form });
  return { status: res.status, body: await res.json() as { success: boolean; result: { recs_added: number } | null; errors: Array<{ code: number; message: string }> } };
}

const resolve = (name: string, type: string) => dig(unbound.port, name, type, { extra: ['+rec', '+dnssec', '+time=5', '+tries=1'] });

async function expectValidated(name: string, type: string, status = 'NOERROR') {
  const r = await resolve(name, type);
  if (r.status !== status || !r.flags.includes('ad')) throw new Error(`${name} ${type}: ${r.status} flags ${r.flags.join(' ')}\n${r.raw}\n${unbound.log().slice(-3000)}`);
  return r;
}

beforeAll(async () => {
  server = await startTestServer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-presigned-'));
  for (const [zone, nsec3] of [['presigned.example', false], ['presigned3.example', true]] as const) {
    const id = await createZone(server, zone);
    const signer = await offlineSigner(zone, nsec3);
    zones[zone] = { id, ds: signer.ds, signed: await signer.sign(2026112601), sign: signer.sign };
  }
}, 60_000);
afterAll(async () => {
  await unbound?.stop();
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('pre-signed zones', () => {
  it('refuses RRSIG, NSEC and the signed SOA until the zone is pre-signed, then imports the signed zone', async () => {
    const { id, signed } = zones['presigned.example']!;
    const refused = await importZone(id, signed);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]!.code).toBe(1118); // the RRSIG over the SOA comes first
    const sdk = server.sdk();
    await expect(sdk.dns.records.create({ zone_id: id, type: 'NSEC', name: `x.presigned.example`, data: { next_domain: 'presigned.example', types: 'A RRSIG NSEC' } } as never))
      .rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 1118 })] });
    expect((await sdk.dns.records.list({ zone_id: id })).result).toEqual([]);

    for (const [zone, { id: zoneId, signed: text }] of Object.entries(zones)) {
      const patched = await sdk.dns.dnssec.edit({ zone_id: zoneId, dnssec_presigned: true });
      expect(patched.dnssec_presigned).toBe(true);
      // Stratus's own key signs nothing here: no DS or key of it is shown, even with DNSSEC active.
      const active = await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'active' });
      expect(active).toMatchObject({ dnssec_presigned: true, ds: null, digest: null, key_tag: null, public_key: null, algorithm: null });
      const unpresigned = await sdk.dns.dnssec.edit({ zone_id: zoneId, dnssec_presigned: false });
      expect(unpresigned.ds).toMatch(new RegExp(`^${zone}\\. 3600 IN DS \\d+ 13 2 [0-9A-F]{64}$`));
      expect(await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'disabled', dnssec_presigned: true })).toMatchObject({ status: 'disabled', dnssec_presigned: true });
      if (zone.startsWith('presigned3')) {
        // NSEC3 in a pre-signed zone needs dnssec_use_nsec3 too, as production has it.
        const refusedNsec3 = await importZone(zoneId, text);
        expect([refusedNsec3.status, refusedNsec3.body.errors[0]!.code, refusedNsec3.body.errors[0]!.message]).toEqual([400, 1118, expect.stringContaining('dnssec_use_nsec3')]);
        await sdk.dns.dnssec.edit({ zone_id: zoneId, dnssec_use_nsec3: true });
      }
      const imported = await importZone(zoneId, text);
      expect(imported.status, JSON.stringify(imported.body.errors)).toBe(200);
      expect(imported.body.result!.recs_added, zone).toBe(lineCount(text));
    }
    const stored = (await sdk.dns.records.list({ zone_id: id, per_page: 500 } as never)).result as unknown as Array<{ type: string; name: string; content: string; data: Record<string, unknown> }>;
    const soa = stored.find((r) => r.type === 'SOA')!;
    expect(soa.content).toBe('ns1.presigned.example hostmaster.presigned.example 2026112601 7200 3600 1209600 300');
    const exported = await (await fetch(`${server.apiBase}/zones/${id}/dns_records/export`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } })).text();
    expect(lineCount(exported, 'SOA')).toBe(1);
    expect(exported).toMatch(/\tIN\tSOA\tns1\.presigned\.example\. hostmaster\.presigned\.example\. 2026112601 /);
    const sig = stored.find((r) => r.type === 'RRSIG' && r.name === 'www.presigned.example' && r.data.type_covered === 'A')!;
    expect(sig.data).toMatchObject({ algorithm: 13, labels: 3, original_ttl: 300, signer_name: 'presigned.example' });
    expect(String(sig.data.expiration)).toMatch(/^\d{14}$/);
    expect(stored.find((r) => r.type === 'NSEC' && r.name === 'www.presigned.example')!.data).toEqual({ next_domain: 'presigned.example', types: 'A AAAA RRSIG NSEC' });
    // One record through the API: an RRSIG in its data form, its content the presentation form.
    const made = await sdk.dns.records.create({
      zone_id: id, type: 'RRSIG', name: 'extra.presigned.example', ttl: 300,
      data: { type_covered: 'txt', algorithm: 13, labels: 3, original_ttl: 300, expiration: '20261224005544', inception: 1795654544, key_tag: 1, signer_name: 'Presigned.Example.', signature: 'AAEC' },
    } as never) as unknown as { id: string; content: string };
    expect(made.content).toBe('TXT 13 3 300 20261224005544 20261126005544 1 presigned.example AAEC');
    await sdk.dns.records.delete(made.id, { zone_id: id });
    // Re-signed (new serial, new signatures): the new signed zone replaces the signer's records, data records stay.
    for (const { id: zoneId, sign } of Object.values(zones)) {
      const resigned = await sign(2026112602);
      const again = await importZone(zoneId, resigned);
      expect(again.status, JSON.stringify(again.body.errors)).toBe(200);
      const now = (await sdk.dns.records.list({ zone_id: zoneId, per_page: 500 } as never)).result as unknown as Array<{ type: string; content: string }>;
      for (const type of ['RRSIG', 'SOA', 'DNSKEY']) expect(now.filter((r) => r.type === type).length, type).toBe(lineCount(resigned, type));
      expect(now.length).toBe(lineCount(resigned));
      expect(now.find((r) => r.type === 'SOA')!.content).toContain(' 2026112602 ');
    }
  });

  it('serves the stored signatures and denial: unbound validates positive, wildcard, CNAME, NODATA, ENT and NXDOMAIN answers', async () => {
    unbound = await startUnbound(server.dnsPort!, Object.keys(zones), Object.values(zones).map((z) => z.ds));
    for (const zone of Object.keys(zones)) {
      expect((await expectValidated(`www.${zone}`, 'A')).answer.some((l) => l.includes('192.0.2.1')), zone).toBe(true);
      await expectValidated(`www.${zone}`, 'AAAA');
      await expectValidated(zone, 'TXT');
      await expectValidated(zone, 'DNSKEY');
      await expectValidated(zone, 'SOA');
      expect((await expectValidated(`anything.wild.${zone}`, 'A')).answer.some((l) => l.includes('192.0.2.3')), zone).toBe(true);
      await expectValidated(`a.b.wild.${zone}`, 'A');
      expect((await expectValidated(`c1.${zone}`, 'A')).answer.some((l) => l.includes('192.0.2.1')), zone).toBe(true);
      expect((await expectValidated(`www.${zone}`, 'TXT')).answer, zone).toEqual([]);
      await expectValidated(`ent.${zone}`, 'A');
      await expectValidated(`x.wild.${zone}`, 'TXT');
      await expectValidated(`nope.${zone}`, 'A', 'NXDOMAIN');
      await expectValidated(`deeper.nope.${zone}`, 'TXT', 'NXDOMAIN');
    }
    // A record added without a signature from the signer is served unsigned, and a validator refuses it.
    const { id } = zones['presigned.example']!;
    const unsigned = await server.sdk().dns.records.create({ zone_id: id, type: 'A', name: 'unsigned.presigned.example', content: '192.0.2.9', ttl: 300 } as never);
    expect((await resolve('unsigned.presigned.example', 'A')).status).toBe('SERVFAIL');
    await server.sdk().dns.records.delete(unsigned.id, { zone_id: id });
  }, 60_000);

  it('answers without DO carry no signature; a referral with DO proves the delegation insecure', async () => {
    const port = server.dnsPort!;
    const plain = await dig(port, 'www.presigned.example', 'A');
    expect(plain.answer.some((l) => / IN RRSIG /.test(l))).toBe(false);
    const any = await dig(port, 'www.presigned.example', 'ANY', { extra: ['+tcp'] });
    expect(any.answer.some((l) => / IN (RRSIG|NSEC) /.test(l))).toBe(false);
    expect(any.answer.some((l) => / IN A 192\.0\.2\.1/.test(l))).toBe(true);
    const signed = await dig(port, 'www.presigned.example', 'A', { extra: ['+dnssec'] });
    expect(signed.answer.some((l) => / IN RRSIG A 13 3 300 /.test(l))).toBe(true);
    // The signer's SOA is served, not Stratus's.
    expect((await dig(port, 'presigned.example', 'SOA')).answer.join('\n')).toMatch(/ns1\.presigned\.example\. hostmaster\.presigned\.example\. 2026112602 /);
    const referral = await dig(port, 'host.sub.presigned.example', 'A', { extra: ['+dnssec'] });
    expect(referral.flags).not.toContain('aa');
    expect(referral.authority.some((l) => /^sub\.presigned\.example\. .* IN NS ns\.elsewhere\.example\./.test(l))).toBe(true);
    expect(referral.authority.some((l) => / IN NSEC \*\.wild\.presigned\.example\. NS RRSIG NSEC/.test(l))).toBe(true);
    expect(referral.authority.some((l) => / IN RRSIG NSEC /.test(l))).toBe(true);
  });

  it('transfers the signed zone as stored: ldns-verify-zone accepts the AXFR', async () => {
    for (const zone of Object.keys(zones)) {
      const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(server.dnsPort!), '+nocmd', '+nostats', '+onesoa', zone, 'AXFR']);
      for (const type of ['DNSKEY', 'RRSIG', zone.startsWith('presigned3') ? 'NSEC3' : 'NSEC']) expect(stdout, `${zone} ${type}`).toMatch(new RegExp(`\\sIN\\s+${type}\\s`));
      expect(stdout).toMatch(/\sIN\s+SOA\s+ns1\.presigned3?\.example\. hostmaster\.presigned3?\.example\. 2026112602 /);
      const file = path.join(tmp, `${zone}.axfr`);
      fs.writeFileSync(file, stdout);
      const verified = await run('ldns-verify-zone', ['-V', '3', file]).catch((err: { stdout: string; stderr: string }) => { throw new Error(`${err.stdout}\n${err.stderr}\n${stdout}`); });
      expect(verified.stdout + verified.stderr).toMatch(/Zone is verified and complete/);
    }
  });

  it("a second user's key and token touch neither the zone's DNSSEC settings nor its pre-signed records", async () => {
    const { id } = zones['presigned.example']!;
    const sdk = server.sdk();
    const before = await sdk.dns.dnssec.get({ zone_id: id });
    const sig = ((await sdk.dns.records.list({ zone_id: id, type: 'RRSIG', per_page: 500 } as never)).result as Array<{ id: string }>)[0]!;
    const other = await addUser(server, 'presigned-other@example.com');
    const token = ((await other.sdk().user.tokens.create({ name: 'dns', policies: [{ effect: 'allow', permission_groups: [{ id: DNS_READ }, { id: DNS_WRITE }], resources: { 'com.cloudflare.api.account.zone.*': '*' } }] } as never)) as { value: string }).value;
    const asToken = { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${token}` };
    const asKey = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    const nsec = { type: 'NSEC', name: 'planted.presigned.example', data: { next_domain: 'www.presigned.example', types: 'A RRSIG NSEC' } };
    for (const headers of [asKey, asToken]) {
      for (const [method, route, body] of [
        ['PATCH', 'dnssec', { dnssec_presigned: false }], ['DELETE', 'dnssec'], ['GET', 'dnssec'],
        ['POST', 'dns_records', nsec], ['GET', `dns_records/${sig.id}`], ['DELETE', `dns_records/${sig.id}`], ['PATCH', `dns_records/${sig.id}`, { ttl: 60 }],
      ] as const) {
        const res = await api(server, method, `/zones/${id}/${route}`, body, headers);
        expect([res.status, res.body.errors[0]?.code], `${method} ${route}`).toEqual([404, 7003]);
      }
    }
    const viaImport = await importZone(id, 'planted IN NSEC www.presigned.example. A RRSIG NSEC\n', { authorization: `Bearer ${token}` });
    expect(viaImport.status).toBe(404);
    expect(await sdk.dns.dnssec.get({ zone_id: id })).toEqual(before);
    expect((await sdk.dns.records.get(sig.id, { zone_id: id })).id).toBe(sig.id);
    expect((await sdk.dns.records.list({ zone_id: id, name: 'planted.presigned.example' } as never)).result).toEqual([]);
  });
});
