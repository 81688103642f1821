/**
 * Secondary DNS over v4 through the official SDK (`dns.zoneTransfers.*`): TSIG keys (secret sealed at rest),
 * peers, ACLs and a zone's outgoing settings, bad bodies, another account (its key and its token) refused with
 * 404 7003 learning nothing, and the permission groups tokens need.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { openDatabase } from '../../src/db/database.js';

const ACCOUNT_SETTINGS_READ = 'c1fde68c7bcc44588cbb6ddbc16d6480';
const ACCOUNT_SETTINGS_WRITE = '1af1fa2adc104452b74a9a3364202f20';
const DNS_READ = '82e64a83756745bbbb1c9c2701bf816b';
const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';
const SECRET = Buffer.from('a-tsig-secret-for-the-api-test-0123456789').toString('base64');

let server: TestServer;
let sdk: Cloudflare;
let account: string;

beforeAll(async () => {
  // Peers on loopback are written below: the operator allows it (refused otherwise: peer-address.test.ts).
  server = await startTestServer({ flags: { 'transfer-peer-allow': '127.0.0.0/8' } });
  sdk = server.sdk();
  account = await accountId(server);
});
afterAll(async () => { await server?.stop(); });

const zt = () => sdk.dns.zoneTransfers;

describe('secondary DNS API', () => {
  it('creates, lists, gets, updates and deletes TSIG keys, peers and ACLs; the secret is sealed at rest', async () => {
    const tsig = await zt().tsigs.create({ account_id: account, name: 'xfer.example.', algo: 'hmac-sha256.', secret: SECRET });
    expect(tsig).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), name: 'xfer.example.', algo: 'hmac-sha256.', secret: SECRET });
    expect(await zt().tsigs.get(tsig.id, { account_id: account })).toEqual(tsig);
    expect((await zt().tsigs.list({ account_id: account })).result).toEqual([tsig]);
    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      const row = await database.db.selectFrom('secondary_dns_tsigs').selectAll().where('id', '=', tsig.id).executeTakeFirstOrThrow();
      expect(row.secret_sealed).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(SECRET);
    } finally {
      await database.close();
    }

    const peer = await zt().peers.create({ account_id: account, name: 'knot' });
    expect(peer).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), name: 'knot', ixfr_enable: false });
    const updated = await zt().peers.update(peer.id, { account_id: account, name: 'knot', ip: '192.0.2.53', port: 5353, ixfr_enable: true, tsig_id: tsig.id });
    expect(updated).toEqual({ id: peer.id, name: 'knot', ip: '192.0.2.53', port: 5353, ixfr_enable: true, tsig_id: tsig.id });
    expect((await zt().peers.list({ account_id: account })).result).toEqual([updated]);

    const acl = await zt().acls.create({ account_id: account, name: 'office', ip_range: '198.51.100.0/24' });
    expect(acl).toEqual({ id: expect.any(String), name: 'office', ip_range: '198.51.100.0/24' });
    expect(await zt().acls.update(acl.id, { account_id: account, name: 'office v6', ip_range: '2001:db8::/48' })).toEqual({ id: acl.id, name: 'office v6', ip_range: '2001:db8::/48' });
    expect(await zt().acls.get(acl.id, { account_id: account })).toMatchObject({ ip_range: '2001:db8::/48' });

    const renamed = await zt().tsigs.update(tsig.id, { account_id: account, name: 'xfer2.example.', algo: 'hmac-sha512.', secret: SECRET });
    expect(renamed).toEqual({ id: tsig.id, name: 'xfer2.example.', algo: 'hmac-sha512.', secret: SECRET });

    expect(await zt().acls.delete(acl.id, { account_id: account })).toEqual({ id: acl.id });
    await expect(zt().acls.get(acl.id, { account_id: account })).rejects.toMatchObject({ status: 404, errors: [expect.objectContaining({ code: 7003 })] });
    expect(await zt().tsigs.delete(tsig.id, { account_id: account })).toEqual({ id: tsig.id });
    expect(await zt().peers.get(peer.id, { account_id: account })).toEqual({ id: peer.id, name: 'knot', ip: '192.0.2.53', port: 5353, ixfr_enable: true });
    expect(await zt().peers.delete(peer.id, { account_id: account })).toEqual({ id: peer.id });
  });

  it('refuses bad bodies with 1290', async () => {
    for (const body of [
      { name: 'k.', algo: 'hmac-sha999.', secret: SECRET },
      { name: 'k.', algo: 'hmac-sha256.', secret: 'not base64!' },
      { algo: 'hmac-sha256.', secret: SECRET },
    ]) {
      const res = await api(server, 'POST', `/accounts/${account}/secondary_dns/tsigs`, body);
      expect([res.status, res.body.errors[0]?.code], JSON.stringify(body)).toEqual([400, 1290]);
    }
    const badPeer = await api(server, 'POST', `/accounts/${account}/secondary_dns/peers`, { name: 'p', ip: 'not-an-ip' });
    expect(badPeer.body.errors[0]?.code).toBe(1290);
    const badTsig = await api(server, 'POST', `/accounts/${account}/secondary_dns/peers`, { name: 'p', tsig_id: 'ffffffffffffffffffffffffffffffff' });
    expect(badTsig.body.errors[0]?.code).toBe(1290);
    const badAcl = await api(server, 'POST', `/accounts/${account}/secondary_dns/acls`, { name: 'a', ip_range: '10.0.0.0/33' });
    expect(badAcl.body.errors[0]?.code).toBe(1290);
  });

  it('manages a zone\'s outgoing settings: create (disabled), enable, status, force_notify, update, disable, delete', async () => {
    const zoneId = await createZone(server, 'outgoing-api.example');
    await expect(zt().outgoing.get({ zone_id: zoneId })).rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 1291 })] });
    const peer = await zt().peers.create({ account_id: account, name: 'secondary', ip: '127.0.0.1', port: 5300 } as never);
    const created = await zt().outgoing.create({ zone_id: zoneId, name: 'outgoing-api.example.', peers: [peer.id] });
    expect(created).toMatchObject({ id: zoneId, name: 'outgoing-api.example.', peers: [peer.id], soa_serial: expect.any(Number) });
    expect(Date.parse(created.created_time!)).not.toBeNaN();
    await expect(zt().outgoing.create({ zone_id: zoneId, name: 'outgoing-api.example.', peers: [] })).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1291 })] });
    expect(await zt().outgoing.status.get({ zone_id: zoneId })).toBe('Disabled');
    expect(await zt().outgoing.enable({ zone_id: zoneId })).toBe('Enabled');
    expect(await zt().outgoing.status.get({ zone_id: zoneId })).toBe('Enabled');
    expect(await zt().outgoing.forceNotify({ zone_id: zoneId })).toBe('OK');
    expect(await zt().outgoing.update({ zone_id: zoneId, name: 'outgoing-api.example.', peers: [] })).toMatchObject({ peers: [] });
    await expect(zt().outgoing.update({ zone_id: zoneId, name: 'other.example.', peers: [] })).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1290 })] });
    await expect(zt().outgoing.update({ zone_id: zoneId, name: 'outgoing-api.example.', peers: ['ffffffffffffffffffffffffffffffff'] })).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1290 })] });
    expect(await zt().outgoing.disable({ zone_id: zoneId })).toBe('Disabled');
    expect(await zt().outgoing.get({ zone_id: zoneId })).toMatchObject({ id: zoneId, peers: [] });
    expect(await zt().outgoing.delete({ zone_id: zoneId })).toEqual({ id: zoneId });
    await expect(zt().outgoing.status.get({ zone_id: zoneId })).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1291 })] });
  });

  it('another account (its key and its token) gets 404 7003 and learns nothing', async () => {
    const tsig = await zt().tsigs.create({ account_id: account, name: 'private.', algo: 'hmac-sha256.', secret: SECRET });
    const peer = await zt().peers.create({ account_id: account, name: 'private-peer' });
    const acl = await zt().acls.create({ account_id: account, name: 'private-acl', ip_range: '203.0.113.0/24' });
    const zoneId = await createZone(server, 'outgoing-private.example');
    await zt().outgoing.create({ zone_id: zoneId, name: 'outgoing-private.example.', peers: [peer.id] });

    const other = await addUser(server, 'xfer-other@example.com');
    const otherAccount = (await other.sdk().accounts.list()).result[0]!.id;
    const otherToken = ((await other.sdk().user.tokens.create({ name: 'all', policies: [
      { effect: 'allow', permission_groups: [{ id: ACCOUNT_SETTINGS_WRITE }], resources: { 'com.cloudflare.api.account.*': '*' } },
      { effect: 'allow', permission_groups: [{ id: DNS_WRITE }], resources: { 'com.cloudflare.api.account.zone.*': '*' } },
    ] } as never)) as { value: string }).value;
    const asToken = { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${otherToken}` };
    const asKey = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    for (const headers of [asKey, asToken]) {
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/accounts/${account}/secondary_dns/tsigs`], ['GET', `/accounts/${account}/secondary_dns/tsigs/${tsig.id}`],
        ['POST', `/accounts/${account}/secondary_dns/tsigs`, { name: 'x.', algo: 'hmac-sha256.', secret: SECRET }],
        ['PUT', `/accounts/${account}/secondary_dns/peers/${peer.id}`, { name: 'stolen' }], ['DELETE', `/accounts/${account}/secondary_dns/acls/${acl.id}`],
        ['GET', `/accounts/${account}/secondary_dns/peers`], ['GET', `/accounts/${account}/secondary_dns/acls`],
        ['GET', `/zones/${zoneId}/secondary_dns/outgoing`], ['POST', `/zones/${zoneId}/secondary_dns/outgoing/enable`],
        ['GET', `/zones/${zoneId}/secondary_dns/outgoing/status`], ['DELETE', `/zones/${zoneId}/secondary_dns/outgoing`],
        // The other account's own routes, with ids of the first account's objects.
        ['GET', `/accounts/${otherAccount}/secondary_dns/tsigs/${tsig.id}`], ['DELETE', `/accounts/${otherAccount}/secondary_dns/peers/${peer.id}`],
      ];
      for (const [method, path, body] of calls) {
        const res = await api(server, method, path, body, headers);
        expect([res.status, res.body.errors[0]?.code], `${method} ${path}`).toEqual([404, 7003]);
        expect(JSON.stringify(res.body)).not.toContain(SECRET);
      }
      const own = await api(server, 'GET', `/accounts/${otherAccount}/secondary_dns/tsigs`, undefined, headers);
      expect(own.body.result).toEqual([]);
    }
    expect(await zt().peers.get(peer.id, { account_id: account })).toMatchObject({ name: 'private-peer' });
    expect(await zt().outgoing.status.get({ zone_id: zoneId })).toBe('Disabled');
  });

  it('tokens need Account Settings Read/Write on the account and DNS Read/Write on the zone', async () => {
    const zoneId = await createZone(server, 'outgoing-token.example');
    const token = async (group: string, resources: Record<string, string>) =>
      new Cloudflare({ apiToken: ((await sdk.user.tokens.create({ name: group, policies: [{ effect: 'allow', permission_groups: [{ id: group }], resources }] } as never)) as { value: string }).value, baseURL: server.apiBase, maxRetries: 0 });
    const acct = { [`com.cloudflare.api.account.${account}`]: '*' };
    const zone = { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' };
    const reader = await token(ACCOUNT_SETTINGS_READ, acct);
    const writer = await token(ACCOUNT_SETTINGS_WRITE, acct);
    const dnsReader = await token(DNS_READ, zone);
    const dnsWriter = await token(DNS_WRITE, zone);
    expect(Array.isArray((await reader.dns.zoneTransfers.tsigs.list({ account_id: account })).result)).toBe(true);
    await expect(reader.dns.zoneTransfers.acls.create({ account_id: account, name: 'a', ip_range: '192.0.2.0/24' })).rejects.toMatchObject({ status: 403 });
    expect(await writer.dns.zoneTransfers.acls.create({ account_id: account, name: 'a', ip_range: '192.0.2.0/24' })).toMatchObject({ name: 'a' });
    await expect(dnsWriter.dns.zoneTransfers.tsigs.list({ account_id: account })).rejects.toMatchObject({ status: 403 });
    await expect(dnsReader.dns.zoneTransfers.outgoing.create({ zone_id: zoneId, name: 'outgoing-token.example.', peers: [] })).rejects.toMatchObject({ status: 403 });
    expect(await dnsWriter.dns.zoneTransfers.outgoing.create({ zone_id: zoneId, name: 'outgoing-token.example.', peers: [] })).toMatchObject({ id: zoneId });
    expect(await dnsReader.dns.zoneTransfers.outgoing.status.get({ zone_id: zoneId })).toBe('Disabled');
    await expect(dnsReader.dns.zoneTransfers.outgoing.enable({ zone_id: zoneId })).rejects.toMatchObject({ status: 403 });
    expect(await dnsWriter.dns.zoneTransfers.outgoing.enable({ zone_id: zoneId })).toBe('Enabled');

    // A secondary zone's incoming settings and force_axfr: DNS Read gets, DNS Write changes.
    const secondary = (await sdk.zones.create({ account: { id: account }, name: 'incoming-token.example', type: 'secondary' })).id;
    const primary = await sdk.dns.zoneTransfers.peers.create({ account_id: account, name: 'primary', ip: '127.0.0.1', port: 1 } as never);
    const sZone = { [`com.cloudflare.api.account.zone.${secondary}`]: '*' };
    const sReader = await token(DNS_READ, sZone);
    const sWriter = await token(DNS_WRITE, sZone);
    const body = { zone_id: secondary, name: 'incoming-token.example', peers: [primary.id], auto_refresh_seconds: 3600 };
    await expect(sReader.dns.zoneTransfers.incoming.create(body)).rejects.toMatchObject({ status: 403 });
    expect(await sWriter.dns.zoneTransfers.incoming.create(body)).toMatchObject({ id: secondary, peers: [primary.id], auto_refresh_seconds: 3600 });
    expect(await sReader.dns.zoneTransfers.incoming.get({ zone_id: secondary })).toMatchObject({ id: secondary, name: 'incoming-token.example' });
    await expect(sReader.dns.zoneTransfers.forceAXFR.create({ zone_id: secondary })).rejects.toMatchObject({ status: 403 });
    expect(await sWriter.dns.zoneTransfers.forceAXFR.create({ zone_id: secondary })).toBe('OK');
    await expect(sWriter.dns.zoneTransfers.incoming.create(body)).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1293 })] });
    await expect(sWriter.dns.zoneTransfers.incoming.update({ ...body, peers: [] })).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1290 })] });
    await expect(sWriter.dns.zoneTransfers.incoming.update({ ...body, name: 'other.example' })).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1290 })] });
    await expect(sReader.dns.zoneTransfers.incoming.delete({ zone_id: secondary })).rejects.toMatchObject({ status: 403 });
    expect(await sWriter.dns.zoneTransfers.incoming.delete({ zone_id: secondary })).toEqual({ id: secondary });
    await expect(dnsWriter.dns.zoneTransfers.forceAXFR.create({ zone_id: zoneId })).rejects.toMatchObject({ errors: [expect.objectContaining({ code: 1293 })] });
  });
});
