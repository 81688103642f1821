/**
 * Zone status transitions by the ownership rules (ownership-rules.ts): which zones are `active` and so
 * served. A zone is decided when it is created, when its owner asks (`PUT /zones/:id/activation_check`),
 * and whenever something above it changes: the NS records of an enclosing zone, a zone above it becoming
 * active or inactive, or a zone above it being deleted.
 *
 * Invariants: a zone only becomes active through {@link ZoneOwnership.reconsider} with `mayActivate`
 * (creation, activation check, a change of the enclosing zone's NS records); any change may deactivate (an
 * active zone that no longer passes becomes `moved`, production's status for a zone whose delegation went
 * away). At most one zone of a name is active: the partial unique index `zones_active_name` makes the second
 * activation fail, which is read as "not activated". Rule 5 of docs/security.md (a later zone never displaces another account's
 * active zone below it) only keeps a zone from becoming active. Decisions about related names hold
 * {@link lockOwnership} (PostgreSQL), so two nodes deciding a parent and a child at once see each other. Every status change bumps the zone's serial (other nodes
 * poll serials), is written to the change log, and is announced on the change feed after commit.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isoTimestamp, type Clock } from '../shared/clock.js';
import type { ZoneChangeFeed } from './change-feed.js';
import { ancestorsOf, assignedNameServers, closestEnclosingActive, obstacleTo, type ActiveBelow, type Candidate, type Obstacle, type ZoneClaim } from './ownership-rules.js';
import { isUniqueViolation } from './unique-violation.js';
import { logChange } from './change-log.js';

const CLAIM_COLUMNS = ['id', 'account_id', 'name', 'status', 'name_servers', 'hold_after', 'hold_include_subdomains'] as const;
/** Advisory lock class of ownership decisions on PostgreSQL (two-`int4` key space; the store's are 0x5354000n). */
const OWNERSHIP_LOCK = 0x53540010;

/**
 * Serialises ownership decisions about related names across nodes sharing PostgreSQL: a transaction-scoped
 * advisory lock on the name's top-level label (a zone and every zone above or below it share it), taken before
 * the rules read anything, so a parent and a child decided at once on two nodes see each other. SQLite runs
 * one write transaction at a time already.
 */
export async function lockOwnership(db: Kysely<Database>, name: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const tld = name.slice(name.lastIndexOf('.') + 1);
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(OWNERSHIP_LOCK)}, hashtext(${tld}))`.execute(db);
}

/** Reads and applies the ownership rules. */
export class ZoneOwnership {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changeFeed: ZoneChangeFeed,
  ) {}

  /** The zones at `name` and at every name above it. */
  claimsAround(db: Kysely<Database>, name: string): Promise<ZoneClaim[]> {
    return db.selectFrom('zones').select([...CLAIM_COLUMNS]).where('name', 'in', [name, ...ancestorsOf(name)]).execute();
  }

  /** What keeps `candidate` from being active now, read through `db` (a transaction or the database). */
  async obstacle(db: Kysely<Database>, candidate: Candidate): Promise<Obstacle | undefined> {
    const claims = await this.claimsAround(db, candidate.name);
    const parent = closestEnclosingActive(candidate.name, claims);
    const ns = parent && parent.account_id !== candidate.account_id ? await nsTargets(db, parent.id, candidate.name) : [];
    let below: ActiveBelow[] = [];
    let own: Map<string, string[]> = new Map();
    if (candidate.status !== 'active') {
      below = await db.selectFrom('zones').select(['account_id', 'name', 'name_servers'])
        .where('name', 'like', `%.${candidate.name}`).where('status', '=', 'active').execute();
      below = below.filter((z) => z.name.endsWith(`.${candidate.name}`));
      if (candidate.id !== undefined && below.some((z) => z.account_id !== candidate.account_id)) own = await allNs(db, candidate.id);
    }
    return obstacleTo(candidate, claims, ns, this.clock.now(), below, (n) => own.get(n) ?? []);
  }

  /**
   * Decides one zone's status again; with `mayActivate` a pending or moved zone that passes becomes active.
   * Returns the new status when it changed. Zones below a zone that changed are decided again too.
   */
  async reconsider(zoneId: string, mayActivate: boolean): Promise<string | undefined> {
    let changed: { name: string; status: string } | undefined;
    try {
      changed = await this.db.transaction().execute(async (trx) => {
        const zone = await trx.selectFrom('zones').select([...CLAIM_COLUMNS]).where('id', '=', zoneId).executeTakeFirst();
        if (!zone) return undefined;
        await lockOwnership(trx, zone.name);
        const blocked = await this.obstacle(trx, { id: zone.id, account_id: zone.account_id, name: zone.name, nameServers: assignedNameServers(zone), status: zone.status });
        const next = blocked === undefined ? (mayActivate ? 'active' : zone.status) : zone.status === 'active' ? 'moved' : zone.status;
        if (next === zone.status) return undefined;
        const stamp = isoTimestamp(this.clock.now());
        const done = await trx.updateTable('zones')
          .set({ status: next, modified_on: stamp, serial: sql<number>`serial + 1`, ...(next === 'active' ? { activated_on: stamp } : {}) })
          .where('id', '=', zoneId).where('status', '=', zone.status).returning('serial').executeTakeFirst();
        if (!done) return undefined;
        // The change log holds every serial (change-log.ts): a status change is an entry without records.
        await logChange(trx, zoneId, { serial: Number(done.serial), records: [] });
        return { name: zone.name, status: next };
      });
    } catch (err) {
      if (isUniqueViolation(err)) return undefined; // another zone of the name became active first
      throw err;
    }
    if (!changed) return undefined;
    this.changeFeed.publish({ zoneId, kind: 'status' });
    await this.reconsiderBelow(changed.name, false);
    return changed.status;
  }

  /**
   * Decides every zone strictly below `name` again, shallow ones first (so a zone's parent is settled before
   * it); `mayActivate` after the NS records of the zone at `name` changed.
   */
  async reconsiderBelow(name: string, mayActivate: boolean): Promise<void> {
    const below = await this.db.selectFrom('zones').select(['id', 'name']).where('name', 'like', `%.${name}`).execute();
    below.sort((a, b) => a.name.split('.').length - b.name.split('.').length || a.name.localeCompare(b.name));
    for (const z of below) await this.reconsider(z.id, mayActivate);
  }
}

/**
 * Decides again (deactivating only) every active zone that lies below another account's active zone or
 * shares its name: run at start, so that zones stored before the ownership rules existed, or changed by a
 * node that stopped half-way, are brought in line before the DNS server loads them. One query, then work
 * only for the zones that may be in breach.
 */
export async function reconcileActiveZones(db: Kysely<Database>, ownership: ZoneOwnership): Promise<number> {
  const active = await db.selectFrom('zones').select(['id', 'name', 'account_id']).where('status', '=', 'active').execute();
  const byName = new Map(active.map((z) => [z.name, z]));
  const suspects = active.filter((z) => ancestorsOf(z.name).some((n) => { const p = byName.get(n); return p !== undefined && p.account_id !== z.account_id; }));
  suspects.sort((x, y) => x.name.split('.').length - y.name.split('.').length);
  let changed = 0;
  for (const z of suspects) if (await ownership.reconsider(z.id, false)) changed++;
  return changed;
}

/** The NS targets at `name` in the zone `zoneId`. */
async function nsTargets(db: Kysely<Database>, zoneId: string, name: string): Promise<string[]> {
  const rows = await db.selectFrom('dns_records').select('content').where('zone_id', '=', zoneId).where('type', '=', 'NS').where('name', '=', name).execute();
  return rows.map((r) => r.content);
}

/** Every NS record of the zone `zoneId`, targets by name. */
async function allNs(db: Kysely<Database>, zoneId: string): Promise<Map<string, string[]>> {
  const rows = await db.selectFrom('dns_records').select(['name', 'content']).where('zone_id', '=', zoneId).where('type', '=', 'NS').execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.name, [...(out.get(r.name) ?? []), r.content]);
  return out;
}
