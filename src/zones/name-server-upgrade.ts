/**
 * At start (after migration 0011): the admin's account keeps the instance's names, and every other account
 * that already has zones is given its pair, its zones taking it in the same transaction. Nothing served
 * changes for the admin's zones. A zone of another account that is active only because another account's
 * zone delegates it (to the instance names, then shared by every zone) keeps its names, so the delegation
 * still holds; every other zone of the account takes the pair. Runs once per account: later starts find the
 * stored pair and do nothing.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ZoneChangeFeed, ZoneColumns } from './change-feed.js';
import { logChange } from './change-log.js';
import { closestEnclosingActive, ancestorsOf } from './ownership-rules.js';
import type { NameServerAssignments } from './name-server-assignments.js';

/** Gives the admin's account and every account with zones a pair; returns how many zones took a new pair. */
export async function assignExistingAccounts(db: Kysely<Database>, assignments: NameServerAssignments, adminAccountId: string, changeFeed: ZoneChangeFeed): Promise<number> {
  await assignments.ensureAdmin(adminAccountId);
  const waiting = await db.selectFrom('zones').innerJoin('accounts', 'accounts.id', 'zones.account_id')
    .select(['zones.account_id', 'accounts.created_on'])
    .where('zones.account_id', 'not in', db.selectFrom('account_name_servers').select('account_id'))
    .groupBy(['zones.account_id', 'accounts.created_on']).orderBy('accounts.created_on').orderBy('zones.account_id').execute();
  let rewritten = 0;
  for (const { account_id: accountId } of waiting) {
    const published: Array<{ zoneId: string; serial: number; zone: ZoneColumns }> = [];
    await assignments.forAccount(accountId, async (trx, pair) => {
      published.length = 0;
      published.push(...await rewriteZones(trx, accountId, pair));
    });
    for (const p of published) changeFeed.publish({ zoneId: p.zoneId, kind: 'settings', serial: p.serial, zone: p.zone });
    rewritten += published.length;
  }
  return rewritten;
}

/** Gives the account's zones `pair`, except those active only by another account's delegation. */
async function rewriteZones(trx: Transaction<Database>, accountId: string, pair: string[]): Promise<Array<{ zoneId: string; serial: number; zone: ZoneColumns }>> {
  const zones = await trx.selectFrom('zones').select(['id', 'name', 'status', 'name_servers', 'dns_settings', 'zone_settings', 'dnssec'])
    .where('account_id', '=', accountId).execute();
  const json = JSON.stringify(pair);
  const out: Array<{ zoneId: string; serial: number; zone: ZoneColumns }> = [];
  for (const z of zones) {
    if (z.name_servers === json) continue;
    if (z.status === 'active') {
      const above = await trx.selectFrom('zones').select(['id', 'account_id', 'name', 'status', 'name_servers', 'hold_after', 'hold_include_subdomains'])
        .where('name', 'in', ancestorsOf(z.name)).execute();
      const parent = closestEnclosingActive(z.name, above);
      if (parent && parent.account_id !== accountId) continue;
    }
    const done = await trx.updateTable('zones').set({ name_servers: json, serial: sql<number>`serial + 1` })
      .where('id', '=', z.id).returning('serial').executeTakeFirstOrThrow();
    const zone: ZoneColumns = { name_servers: json, dns_settings: z.dns_settings, zone_settings: z.zone_settings, dnssec: z.dnssec };
    await logChange(trx, z.id, { serial: Number(done.serial), zone });
    out.push({ zoneId: z.id, serial: Number(done.serial), zone });
  }
  return out;
}
