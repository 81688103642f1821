/**
 * `GET/PATCH/DELETE /zones/:zone_id/dnssec` through the official SDK (`dns.dnssec`): the shape production
 * answers, status transitions (pending, active, pending-disabled, disabled), a new key on re-enabling, the
 * private key sealed at rest, bad bodies, another account refused, and token permission groups.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { openDatabase } from '../../src/db/database.js';

const DNS_READ = '82e64a83756745bbbb1c9c2701bf816b';
const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';

let server: TestServer;
let sdk: Cloudflare;

beforeAll(async () => {
  server = await startTestServer();
  sdk = server.sdk();
});
afterAll(async () => { await server?.stop(); });

describe('DNSSEC API', () => {
  it('answers the SDK shape, from disabled to pending to active, and back off', async () => {
    const zoneId = await createZone(server, 'dnssec-api.example');
    const off = await sdk.dns.dnssec.get({ zone_id: zoneId });
    expect(off).toEqual({
      algorithm: null, digest: null, digest_algorithm: null, digest_type: null, dnssec_multi_signer: false, dnssec_presigned: false,
      dnssec_use_nsec3: false, ds: null, flags: null, key_tag: null, key_type: null, modified_on: null, public_key: null, status: 'disabled',
    });
    const on = await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'active' });
    expect(on).toMatchObject({ status: 'pending', algorithm: '13', key_type: 'ECDSAP256SHA256', digest_type: '2', digest_algorithm: 'SHA256', flags: 257 });
    expect(on.public_key).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    expect(on.digest).toMatch(/^[0-9A-F]{64}$/);
    expect(on.ds).toBe(`dnssec-api.example. 3600 IN DS ${on.key_tag} 13 2 ${on.digest}`);
    expect(Date.parse(on.modified_on!)).not.toBeNaN();
    // No parent in Stratus: active at the next read (docs/compatibility.md).
    expect((await sdk.dns.dnssec.get({ zone_id: zoneId })).status).toBe('active');
    const nsec3 = await sdk.dns.dnssec.edit({ zone_id: zoneId, dnssec_use_nsec3: true, dnssec_multi_signer: true });
    expect(nsec3).toMatchObject({ status: 'active', dnssec_use_nsec3: true, dnssec_multi_signer: true, key_tag: on.key_tag, public_key: on.public_key });

    // The private key is stored sealed, never in the clear.
    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      const row = await database.db.selectFrom('zones').select('dnssec').where('id', '=', zoneId).executeTakeFirstOrThrow();
      const stored = JSON.parse(row.dnssec!) as { key: { sealedPrivateKey: string } };
      expect(stored.key.sealedPrivateKey).toMatch(/^v1\./);
      expect(row.dnssec).not.toMatch(/MIG[A-Za-z0-9+/]{20}/); // no PKCS#8 DER in base64
    } finally {
      await database.close();
    }

    const disabled = await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'disabled' });
    expect(disabled).toMatchObject({ status: 'disabled', key_tag: null, ds: null, dnssec_use_nsec3: true });
    const again = await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'active' });
    expect(again.status).toBe('pending');
    expect(again.public_key).not.toBe(on.public_key);
    expect(await sdk.dns.dnssec.delete({ zone_id: zoneId })).toBe(zoneId);
    expect((await sdk.dns.dnssec.get({ zone_id: zoneId })).status).toBe('disabled');
  });

  it('a child whose parent is in Stratus stays pending until the parent holds its DS; turning off waits for the DS to go', async () => {
    const parentId = await createZone(server, 'parent-api.example');
    const childId = await createZone(server, 'kid.parent-api.example');
    const on = await sdk.dns.dnssec.edit({ zone_id: childId, status: 'active' });
    expect((await sdk.dns.dnssec.get({ zone_id: childId })).status).toBe('pending');
    await sdk.dns.records.create({ zone_id: parentId, type: 'NS', name: 'kid.parent-api.example', content: 'ns1.example.net', ttl: 3600 } as never);
    const ds = await sdk.dns.records.create({ zone_id: parentId, type: 'DS', name: 'kid.parent-api.example', ttl: 3600, data: { key_tag: on.key_tag, algorithm: 13, digest_type: 2, digest: on.digest } } as never);
    expect((await sdk.dns.dnssec.get({ zone_id: childId })).status).toBe('active');
    expect((await sdk.dns.dnssec.edit({ zone_id: childId, status: 'disabled' })).status).toBe('pending-disabled');
    expect((await sdk.dns.dnssec.get({ zone_id: childId })).status).toBe('pending-disabled');
    await sdk.dns.records.delete(ds.id, { zone_id: parentId });
    const gone = await sdk.dns.dnssec.get({ zone_id: childId });
    expect(gone).toMatchObject({ status: 'disabled', key_tag: null });
  });

  it('lists the zone signing key (dns.dnssec.zsk.list) while the zone signs, never the private key', async () => {
    const zoneId = await createZone(server, 'dnssec-zsk.example');
    expect((await sdk.dns.dnssec.zsk.list({ zone_id: zoneId })).result).toEqual([]);
    const on = await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'active' });
    const [zsk, ...more] = (await sdk.dns.dnssec.zsk.list({ zone_id: zoneId })).result;
    expect(more).toEqual([]);
    expect(zsk).toEqual({
      DNSKEY: { Algorithm: 13, Flags: 257, Protocol: 3, PublicKey: on.public_key, Hdr: { Class: 1, Name: 'dnssec-zsk.example.', Rdlength: 68, Rrtype: 48, Ttl: 3600 } },
      Location: 'database', Name: `Kdnssec-zsk.example.+013+${String(on.key_tag).padStart(5, '0')}`,
      SigningKey: { kek: null, privkey: null, pubkey: on.public_key }, Tag: 'active',
    });
    await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'disabled' });
    expect((await sdk.dns.dnssec.zsk.list({ zone_id: zoneId })).result).toEqual([]);
    const other = await addUser(server, 'dnssec-zsk-other@example.com');
    await expect(other.sdk().dns.dnssec.zsk.list({ zone_id: zoneId })).rejects.toMatchObject({ status: 404, errors: [expect.objectContaining({ code: 7003 })] });
  });

  it('DNSKEY records need dnssec_multi_signer (1117): create, batch, import and changing a record into one; other accounts see 404', async () => {
    const zoneId = await createZone(server, 'dnssec-multi.example');
    const key = { type: 'DNSKEY', name: 'dnssec-multi.example', ttl: 3600, data: { flags: 256, protocol: 3, algorithm: 13, public_key: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==' } };
    const refused = { status: 400, errors: [expect.objectContaining({ code: 1117, message: expect.stringContaining('dnssec_multi_signer') })] };
    await expect(sdk.dns.records.create({ zone_id: zoneId, ...key } as never)).rejects.toMatchObject(refused);
    await expect(sdk.dns.records.batch({ zone_id: zoneId, posts: [key] } as never)).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 1117 })] });
    const txt = await sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'dnssec-multi.example', content: '"x"', ttl: 3600 } as never);
    await expect(sdk.dns.records.update(txt.id, { zone_id: zoneId, ...key } as never)).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 1117 })] });
    const file = new File([`dnssec-multi.example. 3600 IN DNSKEY 256 3 13 ${key.data.public_key}\n`], 'zone.txt');
    await expect(sdk.dns.records.import({ zone_id: zoneId, file } as never)).rejects.toMatchObject({ status: 400 });
    expect((await sdk.dns.records.list({ zone_id: zoneId, type: 'DNSKEY' } as never)).result).toEqual([]);

    await sdk.dns.dnssec.edit({ zone_id: zoneId, dnssec_multi_signer: true });
    const other = await addUser(server, 'dnssec-multi-other@example.com');
    await expect(other.sdk().dns.dnssec.edit({ zone_id: zoneId, dnssec_multi_signer: true })).rejects.toMatchObject({ status: 404 });
    const made = await sdk.dns.records.create({ zone_id: zoneId, ...key } as never);
    expect(made).toMatchObject({ type: 'DNSKEY', data: key.data });
  });

  it('refuses bad bodies with 1116, naming each problem', async () => {
    const zoneId = await createZone(server, 'dnssec-bad.example');
    const res = await api(server, 'PATCH', `/zones/${zoneId}/dnssec`, { status: 'on', dnssec_use_nsec3: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e) => e.code)).toEqual([1116, 1116]);
    expect(res.body.errors[0]!.message).toContain('"on"');
    expect(res.body.errors[1]!.message).toContain('dnssec_use_nsec3');
  });

  it('another account gets 404 7003 for the zone; tokens need DNS Read to read and DNS Write to change', async () => {
    const zoneId = await createZone(server, 'dnssec-owner.example');
    const other = await addUser(server, 'dnssec-other@example.com');
    for (const call of [() => other.sdk().dns.dnssec.get({ zone_id: zoneId }), () => other.sdk().dns.dnssec.edit({ zone_id: zoneId, status: 'active' }), () => other.sdk().dns.dnssec.delete({ zone_id: zoneId })]) {
      await expect(call()).rejects.toMatchObject({ status: 404, errors: [expect.objectContaining({ code: 7003 })] });
    }
    expect((await sdk.dns.dnssec.get({ zone_id: zoneId })).status).toBe('disabled');

    const resources = { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' };
    const token = async (group: string) => ((await sdk.user.tokens.create({ name: group, policies: [{ effect: 'allow', permission_groups: [{ id: group }], resources }] } as never)) as { value: string }).value;
    const reader = new Cloudflare({ apiToken: await token(DNS_READ), baseURL: server.apiBase, maxRetries: 0 });
    const writer = new Cloudflare({ apiToken: await token(DNS_WRITE), baseURL: server.apiBase, maxRetries: 0 });
    expect((await reader.dns.dnssec.get({ zone_id: zoneId })).status).toBe('disabled');
    expect((await reader.dns.dnssec.zsk.list({ zone_id: zoneId })).result).toEqual([]);
    await expect(reader.dns.dnssec.edit({ zone_id: zoneId, status: 'active' })).rejects.toMatchObject({ status: 403 });
    expect((await writer.dns.dnssec.edit({ zone_id: zoneId, status: 'active' })).status).toBe('pending');

    // The second user's own API token (DNS Read and Write on every zone it may see) is refused too, and no answer
    // carries anything of the first account's key.
    const own = await sdk.dns.dnssec.get({ zone_id: zoneId });
    const otherSdk = other.sdk();
    const otherToken = ((await otherSdk.user.tokens.create({ name: 'dns', policies: [{ effect: 'allow', permission_groups: [{ id: DNS_READ }, { id: DNS_WRITE }], resources: { 'com.cloudflare.api.account.zone.*': '*' } }] } as never)) as { value: string }).value;
    const asToken = { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${otherToken}` };
    const asKey = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    for (const headers of [asKey, asToken]) {
      for (const [method, path, body] of [['GET', 'dnssec'], ['GET', 'dnssec/zsk'], ['PATCH', 'dnssec', { status: 'disabled' }], ['DELETE', 'dnssec']] as const) {
        const res = await api(server, method, `/zones/${zoneId}/${path}`, body, headers);
        expect([res.status, res.body.errors[0]?.code], `${method} ${path}`).toEqual([404, 7003]);
        for (const secret of [own.public_key, own.digest, own.ds, String(own.key_tag)]) expect(JSON.stringify(res.body)).not.toContain(secret);
      }
    }
    expect(await sdk.dns.dnssec.get({ zone_id: zoneId })).toEqual(own);
  });
});
