/**
 * Zone holds through the official SDK (`zones.holds`): a hold in force stops other accounts from adding the
 * held name (and names below it with `include_subdomains`) with production's 1428, and from activating a
 * subdomain setup below it; releasing the hold, for good or until a date, lets them in again.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig } from '../dns-server/dig.js';
import { addZone, delegate, errorCode, statusOf } from './helpers.js';

const HOLD_MESSAGE = 'The zone name provided is subject to a hold which disallows the creation of this zone. Please contact the domain owner to have this hold removed.';
let server: TestServer;
let a: Cloudflare;
let b: Cloudflare;
let aAccount: string;
let bAccount: string;
let held: string;

beforeAll(async () => {
  server = await startTestServer();
  a = server.sdk();
  aAccount = await accountId(server);
  const other = await addUser(server, 'holds-b@example.org');
  b = other.sdk();
  bAccount = other.accountId;
  held = (await addZone(a, aAccount, 'held-a.com')).id;
});

afterAll(async () => {
  await server?.stop();
});

describe('zone holds', () => {
  it('a zone has no hold until one is created', async () => {
    expect(await a.zones.holds.get({ zone_id: held })).toEqual({ hold: false, include_subdomains: false, hold_after: null });
  });

  it('a hold on the name alone refuses the name (1428) but not names below it', async () => {
    const hold = await a.zones.holds.create({ zone_id: held });
    expect(hold).toMatchObject({ hold: true, include_subdomains: false });
    expect(Date.parse(hold.hold_after!)).toBeLessThanOrEqual(Date.now());
    expect(await errorCode(b.zones.create({ account: { id: bAccount }, name: 'held-a.com', type: 'full' }))).toBe(1428);
    const sub = await addZone(b, bAccount, 'free.held-a.com');
    expect(sub.status).toBe('pending');
    // The owner itself is not held back.
    expect((await addZone(a, aAccount, 'own.held-a.com')).status).toBe('active');
  });

  it('include_subdomains refuses names below it too, with production\'s message', async () => {
    const hold = await a.zones.holds.edit({ zone_id: held, include_subdomains: true });
    expect(hold).toMatchObject({ hold: true, include_subdomains: true });
    try {
      await b.zones.create({ account: { id: bAccount }, name: 'api.held-a.com', type: 'full' });
      expect.unreachable();
    } catch (err) {
      expect((err as { status: number }).status).toBe(400);
      expect((err as { errors: unknown[] }).errors).toEqual([{ code: 1428, message: HOLD_MESSAGE }]);
    }
    expect(await errorCode(b.zones.create({ account: { id: bAccount }, name: 'x.y.held-a.com', type: 'full' }))).toBe(1428);
  });

  it('a held subdomain setup is not activated by a delegation', async () => {
    const free = (await b.zones.list({ name: 'free.held-a.com' })).result[0]!;
    await delegate(a, held, 'free', free.name_servers);
    await b.zones.activationCheck.trigger({ zone_id: free.id });
    expect(await statusOf(b, free.id)).toBe('pending');
    expect((await dig(server.dnsPort!, 'free.held-a.com', 'A')).flags).not.toContain('aa');
  });

  it('releasing the hold lets the other account in; a release until a date re-enables it then', async () => {
    const released = await a.zones.holds.delete({ zone_id: held });
    expect(released).toMatchObject({ hold: false, include_subdomains: true, hold_after: null });
    const free = (await b.zones.list({ name: 'free.held-a.com' })).result[0]!;
    await b.zones.activationCheck.trigger({ zone_id: free.id });
    expect(await statusOf(b, free.id)).toBe('active');

    await a.zones.holds.edit({ zone_id: held, hold_after: '' });
    expect((await a.zones.holds.get({ zone_id: held })).hold).toBe(true);
    const until = new Date(Date.now() + 3600_000).toISOString();
    const later = await a.zones.holds.delete({ zone_id: held, hold_after: until });
    expect(later.hold).toBe(false);
    expect(Date.parse(later.hold_after!)).toBe(Date.parse(until));
    expect((await addZone(b, bAccount, 'late.held-a.com')).status).toBe('pending');
    // A past date re-enables a released hold at once; on a hold in force it changes nothing.
    const past = '2020-01-01T00:00:00Z';
    expect((await a.zones.holds.edit({ zone_id: held, hold_after: past })).hold).toBe(true);
    expect((await a.zones.holds.edit({ zone_id: held, hold_after: '2021-01-01T00:00:00Z' })).hold_after).toBe('2020-01-01T00:00:00.0Z');
    expect(await errorCode(b.zones.create({ account: { id: bAccount }, name: 'again.held-a.com', type: 'full' }))).toBe(1428);
    expect((await a.zones.holds.edit({ zone_id: held, hold_after: null })).hold).toBe(false);
  });

  it('bad values are 1114; a pending zone\'s hold does not bind anyone', async () => {
    expect(await errorCode(a.zones.holds.edit({ zone_id: held, hold_after: 'tomorrow' }))).toBe(1114);
    expect(await errorCode(a.zones.holds.edit({ zone_id: held, include_subdomains: 'yes' as never }))).toBe(1114);
    expect(await errorCode(a.zones.holds.delete({ zone_id: held, hold_after: '2030-13-01' }))).toBe(1114);
    const res = await api(server, 'POST', `/zones/${held}/hold?include_subdomains=maybe`);
    expect(res.body.errors[0]!.code).toBe(1114);
    // A hold binds others only while its zone is active: B's pending copy of A's name holds nothing.
    await addZone(a, aAccount, 'open-a.com');
    const bCopy = await addZone(b, bAccount, 'open-a.com');
    expect(bCopy.status).toBe('pending');
    expect((await b.zones.holds.create({ zone_id: bCopy.id, include_subdomains: true })).hold).toBe(true);
    expect((await addZone(a, aAccount, 'deep.open-a.com')).status).toBe('active');
  });

  it('API tokens need Zone Read to see a hold and Zone Write to change it or run an activation check', async () => {
    const ZONE_READ = 'c8fed203ed3043cba015a93ad1616f1f';
    const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';
    const token = async (group: string) => {
      const made = await a.user.tokens.create({ name: `hold-${group}`, policies: [{ effect: 'allow', permission_groups: [{ id: group }], resources: { [`com.cloudflare.api.account.zone.${held}`]: '*' } }] } as never) as { value: string };
      return new Cloudflare({ apiToken: made.value, baseURL: server.apiBase, maxRetries: 0 });
    };
    const reader = await token(ZONE_READ);
    expect((await reader.zones.holds.get({ zone_id: held })).include_subdomains).toBe(true);
    expect(await errorCode(reader.zones.holds.create({ zone_id: held }))).toBe(9109);
    expect(await errorCode(reader.zones.holds.delete({ zone_id: held }))).toBe(9109);
    expect(await errorCode(reader.zones.activationCheck.trigger({ zone_id: held }))).toBe(9109);
    const dns = await token(DNS_WRITE);
    expect(await errorCode(dns.zones.holds.get({ zone_id: held }))).toBe(9109);
  });
});
