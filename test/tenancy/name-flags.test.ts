/**
 * The operator's side of the names nobody may add: listener names (`--s3-domain`) are reserved with the
 * names below them, and `--zone-name-allow` exempts a name and what lies below it (and nothing else);
 * `--name-server-pool` gives each account a pair under the domain of `--nameservers`, and the operator serves
 * the pool's addresses the way it serves the instance names' (here from an allowed zone of the admin's).
 */
import type Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { addUser } from '../helpers/users.js';
import { dig } from '../dns-server/dig.js';
import { addZone, errorCode } from './helpers.js';

let server: TestServer;
let sdk: Cloudflare;
let account: string;

beforeAll(async () => {
  server = await startTestServer({ flags: { 's3-domain': 'S3.Files.Test', 'nameservers': 'ns1.dns.operator.test,ns2.dns.operator.test', 'zone-name-allow': 'github.io,Operator.Test.', 'name-server-pool': 'Ada,bob,cy' } });
  sdk = server.sdk();
  account = await accountId(server);
});

afterAll(async () => {
  await server?.stop();
});

describe('operator flags for zone names', () => {
  it('parses --zone-name-allow into lowercase names without trailing dots', () => {
    expect(loadConfig({ 'zone-name-allow': ' Stratus.Invalid. , co.uk' }).zoneNameAllow).toEqual(['stratus.invalid', 'co.uk']);
    expect(loadConfig({}).zoneNameAllow).toEqual([]);
  });

  it('reserves the S3 domain and the names below it', async () => {
    for (const name of ['s3.files.test', 'bucket.s3.files.test']) expect(await errorCode(sdk.zones.create({ account: { id: account }, name, type: 'full' })), name).toBe(1093);
    expect((await addZone(sdk, account, 'files.test')).status).toBe('active');
  });

  it('allowed names (and names below them) may be added; others stay refused', async () => {
    expect((await addZone(sdk, account, 'operator.test')).status).toBe('active');
    expect((await addZone(sdk, account, 'ns1.dns.operator.test')).status).toBe('active');
    expect((await addZone(sdk, account, 'github.io')).status).toBe('active');
    expect(await errorCode(sdk.zones.create({ account: { id: account }, name: 'co.uk', type: 'full' }))).toBe(1099);
  });

  it('parses --name-server-pool into names under the domain of --nameservers, and refuses bad lists', () => {
    expect(loadConfig({}).nameServerPool.slice(0, 2)).toEqual(['ada.stratus.invalid', 'bob.stratus.invalid']);
    expect(loadConfig({ 'name-server-pool': 'off' }).nameServerPool).toEqual([]);
    expect(loadConfig({ nameservers: 'ns1.ns.example.net,ns2.ns.example.net', 'name-server-pool': 'x,y' }).nameServerPool).toEqual(['x.ns.example.net', 'y.ns.example.net']);
    expect(() => loadConfig({ 'name-server-pool': 'solo' })).toThrow(ConfigError);
    expect(() => loadConfig({ 'name-server-pool': 'ns1,ns3' })).toThrow('--name-server-pool: ns1.stratus.invalid is one of --nameservers');
  });

  it('a second account gets a pair of the pool; the operator serves the pool\'s addresses', async () => {
    const other = await addUser(server, 'pool-b@example.org');
    const zone = await other.sdk().zones.create({ account: { id: other.accountId }, name: 'pool-b.example', type: 'full' });
    expect(zone.name_servers).toEqual(['ada.dns.operator.test', 'bob.dns.operator.test']);
    expect((await sdk.zones.create({ account: { id: account }, name: 'admin-pool.example', type: 'full' })).name_servers).toEqual(['ns1.dns.operator.test', 'ns2.dns.operator.test']);
    // Here the operator exempted operator.test; a tenant's zone of a pool name below the admin's zone still waits.
    expect((await addZone(other.sdk(), other.accountId, 'ada.dns.operator.test')).status).toBe('pending');
    const ownZone = (await sdk.zones.list({ name: 'operator.test' })).result[0]!;
    await sdk.dns.records.create({ zone_id: ownZone.id, type: 'A', name: 'ada.dns', content: '192.0.2.53', ttl: 300 } as never);
    expect((await dig(server.dnsPort!, 'ada.dns.operator.test', 'A')).answer).toEqual(['ada.dns.operator.test. 300 IN A 192.0.2.53']);
  });
});
