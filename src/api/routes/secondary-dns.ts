/**
 * Secondary DNS over v4, in the shapes of the official SDK's `dns.zoneTransfers`: an account's TSIG keys, peers
 * and ACLs (`/accounts/:account_id/secondary_dns/{tsigs,peers,acls}[/:id]`: list, create, get, PUT, delete) and a
 * zone's outgoing settings (`/zones/:zone_id/secondary_dns/outgoing[/enable|/disable|/force_notify|/status]`), a
 * secondary zone's incoming settings (`/zones/:zone_id/secondary_dns/incoming`) and `force_axfr`.
 * Another account's ids, and zones, are 404 + 7003. Tokens need Account Settings Read/Write on the account, and
 * DNS Read/Write on the zone (route-permissions.ts). A peer ip the address policy refuses is 1294
 * (`--transfer-peer-allow`; secondary-dns/peer-address.ts).
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { readJsonObject } from '../body.js';
import { ok, okPage } from '../respond.js';
import { requireAccount } from './dns-settings.js';
import { requireZone } from '../zone-access.js';
import { AccountObjects } from '../../secondary-dns/account-objects.js';
import { OutgoingSettings, type OutgoingZone } from '../../secondary-dns/outgoing.js';
import { requestNotify } from '../../secondary-dns/change-signal.js';
import { IncomingSettings, type IncomingZone } from '../../secondary-dns/incoming.js';
import { transferPeerPolicy } from '../../runtime/transfer-peer-policy.js';

/** Routes of secondary DNS. */
export function secondaryDnsRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const objects = new AccountObjects(deps.db, deps.edge.box, transferPeerPolicy(deps.config.transferPeerAllow));
  const outgoing = new OutgoingSettings(deps.db);
  const incoming = new IncomingSettings(deps.db);
  const list = <T>(c: Context<ApiEnv>, items: T[]) => okPage(c, items, 1, Math.max(items.length, 20), items.length);

  interface Ops {
    list(account: string): Promise<unknown[]>;
    get(account: string, id: string, path: string): Promise<unknown>;
    create(account: string, body: Record<string, unknown>): Promise<unknown>;
    update(account: string, id: string, body: Record<string, unknown>, path: string): Promise<unknown>;
    delete(account: string, id: string, path: string): Promise<void>;
  }
  const kinds: Record<string, Ops> = {
    tsigs: { list: (a) => objects.listTsigs(a), get: (a, i, p) => objects.getTsig(a, i, p), create: (a, b) => objects.createTsig(a, b), update: (a, i, b, p) => objects.updateTsig(a, i, b, p), delete: (a, i, p) => objects.deleteTsig(a, i, p) },
    peers: { list: (a) => objects.listPeers(a), get: (a, i, p) => objects.getPeer(a, i, p), create: (a, b) => objects.createPeer(a, b), update: (a, i, b, p) => objects.updatePeer(a, i, b, p), delete: (a, i, p) => objects.deletePeer(a, i, p) },
    acls: { list: (a) => objects.listAcls(a), get: (a, i, p) => objects.getAcl(a, i, p), create: (a, b) => objects.createAcl(a, b), update: (a, i, b, p) => objects.updateAcl(a, i, b, p), delete: (a, i, p) => objects.deleteAcl(a, i, p) },
  };
  for (const [kind, ops] of Object.entries(kinds)) {
    const base = `/accounts/:account_id/secondary_dns/${kind}`;
    const param = `${base}/:object_id`;
    app.get(base, async (c) => list(c, await ops.list(requireAccount(c))));
    app.post(base, async (c) => {
      const account = requireAccount(c);
      return ok(c, await ops.create(account, await readJsonObject(c)));
    });
    app.get(param, async (c) => ok(c, await ops.get(requireAccount(c), c.req.param('object_id') ?? '', c.req.path)));
    app.put(param, async (c) => {
      const account = requireAccount(c);
      return ok(c, await ops.update(account, c.req.param('object_id') ?? '', await readJsonObject(c), c.req.path));
    });
    app.delete(param, async (c) => {
      await ops.delete(requireAccount(c), c.req.param('object_id') ?? '', c.req.path);
      return ok(c, { id: c.req.param('object_id') ?? '' });
    });
  }

  const zoneOf = async (c: Context<ApiEnv>): Promise<OutgoingZone> => {
    const zone = await requireZone(c, c.req.param('zone_id') ?? '');
    return { id: zone.id, name: zone.name, accountId: zone.account_id };
  };
  const out = '/zones/:zone_id/secondary_dns/outgoing';
  app.get(out, async (c) => ok(c, await outgoing.get(await zoneOf(c))));
  app.post(out, async (c) => {
    const zone = await zoneOf(c);
    return ok(c, await outgoing.create(zone, await readJsonObject(c)));
  });
  app.put(out, async (c) => {
    const zone = await zoneOf(c);
    return ok(c, await outgoing.update(zone, await readJsonObject(c)));
  });
  app.delete(out, async (c) => {
    const zone = await zoneOf(c);
    await outgoing.delete(zone);
    return ok(c, { id: zone.id });
  });
  app.post(`${out}/enable`, async (c) => ok(c, await outgoing.setEnabled(await zoneOf(c), true)));
  app.post(`${out}/disable`, async (c) => ok(c, await outgoing.setEnabled(await zoneOf(c), false)));
  app.get(`${out}/status`, async (c) => ok(c, await outgoing.status(await zoneOf(c))));
  app.post(`${out}/force_notify`, async (c) => {
    const zone = await zoneOf(c);
    await outgoing.get(zone);
    requestNotify(zone.id);
    return ok(c, 'OK');
  });

  // A secondary zone's incoming settings (secondary-dns/incoming.ts) and force_axfr.
  const incomingZone = async (c: Context<ApiEnv>): Promise<IncomingZone> => {
    const zone = await requireZone(c, c.req.param('zone_id') ?? '');
    return { id: zone.id, name: zone.name, accountId: zone.account_id, type: zone.type };
  };
  const inc = '/zones/:zone_id/secondary_dns/incoming';
  app.get(inc, async (c) => ok(c, await incoming.get(await incomingZone(c))));
  app.post(inc, async (c) => {
    const zone = await incomingZone(c);
    return ok(c, await incoming.create(zone, await readJsonObject(c)));
  });
  app.put(inc, async (c) => {
    const zone = await incomingZone(c);
    return ok(c, await incoming.update(zone, await readJsonObject(c)));
  });
  app.delete(inc, async (c) => {
    const zone = await incomingZone(c);
    await incoming.delete(zone);
    return ok(c, { id: zone.id });
  });
  app.post('/zones/:zone_id/secondary_dns/force_axfr', async (c) => {
    await incoming.forceAxfr(await incomingZone(c));
    return ok(c, 'OK');
  });
  return app;
}
