/**
 * `PATCH /zones/:zone_id` through the official SDK (`zones.edit`): paused, type, vanity name servers, the
 * deprecated plan field; every bad body in the v4 envelope; a paused zone's proxied records answer their own
 * addresses over DNS (dig); a second user and a token without Zone Edit are refused.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig } from '../dns-server/dig.js';

/** Permission groups "Zone Read" and "Zone Write" (production's ids). */
const ZONE_READ = 'c8fed203ed3043cba015a93ad1616f1f';
const ZONE_WRITE = 'e6d2666161e84845a636613608cee8d5';

/** Asks until `check` holds for the answer (the DNS server applies changes from the change feed). */
async function digUntil(port: number, name: string, type: string, check: (answer: string[]) => boolean): Promise<string[]> {
  let last: string[] = [];
  for (let i = 0; i < 100; i++) {
    last = (await dig(port, name, type)).answer;
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

describe('PATCH /zones/:zone_id', () => {
  let server: TestServer;
  let cf: Cloudflare;
  beforeAll(async () => {
    server = await startTestServer({ flags: { nameservers: 'ns1.test.invalid,ns2.test.invalid', 'edge-ipv4': '192.0.2.10' } });
    cf = server.sdk();
  });
  afterAll(async () => { await server.stop(); });

  it('pauses and unpauses a zone; while paused its proxied records answer the origin', async () => {
    const zoneId = await createZone(server, 'paused-edit.example');
    await cf.dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '198.51.100.7', proxied: true } as never);
    const port = server.dnsPort!;
    expect(await digUntil(port, 'www.paused-edit.example', 'A', (a) => a.some((l) => l.endsWith('192.0.2.10')))).toEqual(['www.paused-edit.example. 300 IN A 192.0.2.10']);

    const before = await cf.zones.get({ zone_id: zoneId });
    const paused = await cf.zones.edit({ zone_id: zoneId, paused: true });
    expect(paused.paused).toBe(true);
    expect(paused.modified_on >= before.modified_on).toBe(true);
    expect((await cf.zones.get({ zone_id: zoneId })).paused).toBe(true);
    expect(await digUntil(port, 'www.paused-edit.example', 'A', (a) => a.some((l) => l.endsWith('198.51.100.7')))).toEqual(['www.paused-edit.example. 300 IN A 198.51.100.7']);
    // The record itself is still proxied in the API: pausing changes what is served, not the records.
    const rec = (await cf.dns.records.list({ zone_id: zoneId, type: 'A' })).result[0]!;
    expect(rec.proxied).toBe(true);

    expect((await cf.zones.edit({ zone_id: zoneId, paused: false })).paused).toBe(false);
    expect(await digUntil(port, 'www.paused-edit.example', 'A', (a) => a.some((l) => l.endsWith('192.0.2.10')))).toEqual(['www.paused-edit.example. 300 IN A 192.0.2.10']);
  });

  it('changes the type and the vanity name servers, and accepts the plan Stratus has', async () => {
    const zoneId = await createZone(server, 'type-edit.example');
    expect((await cf.zones.edit({ zone_id: zoneId, type: 'partial' })).type).toBe('partial');
    expect((await cf.zones.get({ zone_id: zoneId })).type).toBe('partial');
    expect((await cf.zones.edit({ zone_id: zoneId, type: 'full' })).type).toBe('full');
    const vanity = await cf.zones.edit({ zone_id: zoneId, vanity_name_servers: ['NS1.Type-Edit.example.', 'ns2.type-edit.example'] });
    expect(vanity.vanity_name_servers).toEqual(['ns1.type-edit.example', 'ns2.type-edit.example']);
    expect(vanity.name_servers).toEqual(['ns1.test.invalid', 'ns2.test.invalid']);
    expect((await cf.zones.edit({ zone_id: zoneId, vanity_name_servers: [] })).vanity_name_servers).toEqual([]);
    const plan = await api(server, 'PATCH', `/zones/${zoneId}`, { plan: { id: '0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee' } });
    expect(plan.status).toBe(200);
    expect(plan.body.result.plan.legacy_id).toBe('free');
  });

  it('refuses bad bodies with every problem in the v4 envelope', async () => {
    const zoneId = await createZone(server, 'bad-edit.example');
    const err = await cf.zones.edit({ zone_id: zoneId, paused: 'yes' as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cloudflare.BadRequestError);
    expect((err as InstanceType<typeof Cloudflare.BadRequestError>).errors[0]).toMatchObject({ code: 1115, message: 'Invalid paused "yes": expected true or false' });
    const many = await api(server, 'PATCH', `/zones/${zoneId}`, { type: 'internal', vanity_name_servers: ['not a host'], plan: { id: 'f'.repeat(32) } });
    expect(many.status).toBe(400);
    expect(many.body.success).toBe(false);
    expect(many.body.errors.map((e) => e.code)).toEqual([1102, 1115, 1115]);
    const unknown = await api(server, 'PATCH', `/zones/${zoneId}`, { name: 'other.example' });
    expect(unknown.body.errors).toEqual([{ code: 1115, message: 'Zone property "name" cannot be changed: PATCH /zones/:zone_id changes paused, type, vanity_name_servers, plan' }]);
    const empty = await api(server, 'PATCH', `/zones/${zoneId}`, {});
    expect(empty.body.errors[0]!.code).toBe(1115);
    const dup = await api(server, 'PATCH', `/zones/${zoneId}`, { vanity_name_servers: ['ns1.a.example', 'NS1.a.example'] });
    expect(dup.body.errors[0]!.message).toContain('listed twice');
    // Nothing was written.
    expect(await cf.zones.get({ zone_id: zoneId })).toMatchObject({ paused: false, type: 'full', vanity_name_servers: [] });
  });

  it('a second user cannot edit another account\'s zone, nor can a token without Zone Edit', async () => {
    const zoneId = await createZone(server, 'owned-edit.example');
    const other = await addUser(server, 'zone-edit-other@example.com');
    const err = await other.sdk().zones.edit({ zone_id: zoneId, paused: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cloudflare.NotFoundError);
    expect((await cf.zones.get({ zone_id: zoneId })).paused).toBe(false);

    const make = async (group: string) => (await api(server, 'POST', '/user/tokens', {
      name: `zone-edit-${group}`, policies: [{ effect: 'allow', resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' }, permission_groups: [{ id: group }] }],
    })).body.result.value as string;
    const reader = new Cloudflare({ apiToken: await make(ZONE_READ), baseURL: server.apiBase, maxRetries: 0 });
    await expect(reader.zones.edit({ zone_id: zoneId, paused: true })).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError);
    const editor = new Cloudflare({ apiToken: await make(ZONE_WRITE), baseURL: server.apiBase, maxRetries: 0 });
    expect((await editor.zones.edit({ zone_id: zoneId, paused: true })).paused).toBe(true);
  });
});
