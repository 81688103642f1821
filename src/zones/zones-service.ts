/**
 * Zones: create, list, get, delete, always on behalf of a caller who may act on some accounts. A zone of
 * another account is treated exactly like a zone that does not exist (the caller learns nothing).
 *
 * Invariants: an account holds at most one zone of a name (a second is refused with 1061); several accounts
 * may hold zones of one name, at most one of them active (ownership rules: zone-ownership.ts); deleting a
 * zone deletes its records in the same transaction; every committed change is announced on the change feed
 * after commit.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, ZonesTable } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { QueryTemplate } from '../db/query-template.js';
import { isoTimestamp, type Clock } from '../shared/clock.js';
import { isId, newId } from '../shared/ids.js';
import type { ZoneChangeFeed } from './change-feed.js';
import { normalizeZoneName } from './zone-name.js';
import { parseZoneNameFilter, zoneNameCondition } from './zone-name-filter.js';
import { deleteZoneChanges } from './change-log.js';
import { bumpEdgeSerial } from '../db/edge-serial.js';
import { initialSerial } from './serial.js';
import { initialDnsSettings } from './settings/dns-settings.js';
import { parseJsonObject } from './settings/shape.js';
import { NamePolicy } from './name-policy.js';
import { ZoneOwnership, lockOwnership } from './zone-ownership.js';
import { NameServerAssignments } from './name-server-assignments.js';
import { isHeldAgainst } from './ownership-rules.js';
import { heldName } from './zone-holds.js';
import { isUniqueViolation } from './unique-violation.js';
import { SECONDARY_DNSSEC } from './secondary-zone.js';
import './unique-keys.js';

/** A stored zone row. */
export type ZoneRow = Selectable<ZonesTable>;

/** A zone with the name of its account. */
export interface ZoneWithAccount extends ZoneRow {
  account_name: string;
}

/** Zone types the API accepts. */
export const ZONE_TYPES = ['full', 'partial', 'secondary'] as const;

/** Who is asking: the accounts the caller may act on. */
export interface Caller {
  accountIds: readonly string[];
  /** For API tokens: which zones of those accounts a list may show (all when absent). */
  zoneScope?: { all: boolean; accountIds: readonly string[]; zoneIds: readonly string[] };
}

/** Filters and paging of {@link ZonesService.list}. */
export interface ZoneListQuery {
  /** `[OP:]VALUE` with production's operators (zone-name-filter.ts). */
  name?: string;
  status?: string;
  accountId?: string;
  accountName?: string;
  page: number;
  perPage: number;
  order: 'name' | 'status' | 'account.id' | 'account.name';
  direction: 'asc' | 'desc';
}

/** Raised for an unknown, malformed or foreign zone id. `path` is the request path to name in the message. */
export function zoneNotFound(path: string): AppError {
  return new AppError(7003, `Could not route to ${path}, perhaps your object identifier is invalid?`, 404);
}

/** A zone with its account's name, by id (every request under /zones/:zone_id runs it). */
const ZONE_BY_ID = new QueryTemplate<{ zoneId: string }, ZoneWithAccount>((db, p) => db.selectFrom('zones')
  .innerJoin('accounts', 'accounts.id', 'zones.account_id')
  .selectAll('zones').select('accounts.name as account_name')
  .where('zones.id', '=', p('zoneId')));

/** A zone's id, name and account, by id (what record routes need; no join, no JSON columns). */
const ZONE_REF_BY_ID = new QueryTemplate<{ zoneId: string }, { id: string; name: string; account_id: string }>((db, p) => db.selectFrom('zones')
  .select(['id', 'name', 'account_id']).where('id', '=', p('zoneId')));

/** The zones service. */
export class ZonesService {
  /** Status transitions by the ownership rules (shared with the records service and the routes). */
  readonly ownership: ZoneOwnership;
  private readonly names: NamePolicy;
  /** The name server pair each account's zones are given. */
  readonly assignments: NameServerAssignments;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changeFeed: ZoneChangeFeed,
    nameservers: readonly string[],
    opts: { names?: NamePolicy; ownership?: ZoneOwnership; assignments?: NameServerAssignments } = {},
  ) {
    this.names = opts.names ?? new NamePolicy({ nameservers, listenerNames: [], allow: [] });
    this.ownership = opts.ownership ?? new ZoneOwnership(db, clock, changeFeed);
    this.assignments = opts.assignments ?? new NameServerAssignments(db, clock, nameservers, []);
  }

  /**
   * Creates a zone in one of the caller's accounts (docs/security.md): refused when nobody may add the name
   * (1099, 1093), when the account already has a zone of that name (1061) or when another account holds it
   * (1428); otherwise created `active` when the ownership rules allow, else `pending` (without saying why:
   * a name active in another account is not revealed).
   */
  async create(caller: Caller, body: { name: unknown; accountId: unknown; type: unknown }): Promise<ZoneWithAccount> {
    const errors: AppError[] = [];
    const name = normalizeZoneName(body.name);
    if (body.name === undefined || body.name === null || body.name === '') errors.push(new AppError(1100, 'Missing zone name: send "name", e.g. "example.com"'));
    else if (name === undefined) errors.push(new AppError(1100, `Invalid zone name ${JSON.stringify(body.name)}: expected a domain name such as "example.com"`));
    else {
      const refused = this.names.problem(name);
      if (refused) errors.push(refused);
    }
    const type = body.type ?? 'full';
    if (!(ZONE_TYPES as readonly unknown[]).includes(type)) errors.push(new AppError(1102, `Invalid zone type ${JSON.stringify(body.type)}: use full, partial or secondary`));
    const accountId = body.accountId;
    if (accountId === undefined || accountId === null || accountId === '') errors.push(new AppError(1101, 'Missing account: send "account": {"id": "<account id>"}'));
    else if (typeof accountId !== 'string' || !caller.accountIds.includes(accountId)) errors.push(new AppError(1101, `Invalid or unknown account ${JSON.stringify(accountId)}`));
    if (errors.length > 0) throw new AppError(errors[0]!.code, errors[0]!.message, 400, { others: errors.slice(1) });

    const id = newId();
    const nameServers = await this.assignments.forAccount(accountId as string);
    let status = '';
    // A unique violation means a concurrent create won: of this account and name (1061 on the next pass),
    // or of the active zone of this name (this one is then created pending on the next pass).
    for (let attempt = 0; ; attempt++) {
      try {
        status = await this.insert(id, name!, accountId as string, type as string, nameServers);
        break;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= 3) throw err;
      }
    }
    this.changeFeed.publish({ zoneId: id, kind: 'created' });
    if (status === 'active') await this.ownership.reconsiderBelow(name!, false);
    return this.get(caller, id, '');
  }

  /** One attempt at inserting the zone; returns its status. */
  private async insert(id: string, name: string, accountId: string, type: string, nameServers: readonly string[]): Promise<string> {
    const now = this.clock.now();
    const stamp = isoTimestamp(now);
    return this.db.transaction().execute(async (trx) => {
      await lockOwnership(trx, name);
      const claims = await this.ownership.claimsAround(trx, name);
      if (claims.some((c) => c.name === name && c.account_id === accountId)) throw new AppError(1061, `${name} already exists`, 400);
      if (isHeldAgainst({ account_id: accountId, name }, claims, now)) throw heldName();
      const blocked = await this.ownership.obstacle(trx, { account_id: accountId, name, nameServers });
      const status = blocked === undefined ? 'active' : 'pending';
      const account = await trx.selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirst();
      await trx.insertInto('zones').values({
        id, account_id: accountId, name, status, type,
        name_servers: JSON.stringify(nameServers), serial: initialSerial(now), dns_settings: initialDnsSettings(parseJsonObject(account?.settings), nameServers), zone_settings: '{}',
        created_on: stamp, modified_on: stamp, activated_on: status === 'active' ? stamp : null,
        ...(type === 'secondary' ? { dnssec: SECONDARY_DNSSEC } : {}),
      }).execute();
      return status;
    });
  }

  /** The caller's zone with this id; 7003 (naming `path`) when it is unknown, malformed or foreign. */
  get(caller: Caller, zoneId: string, path: string): Promise<ZoneWithAccount> {
    return this.owned(ZONE_BY_ID, caller, zoneId, path);
  }

  /** Like {@link get}, but only the zone's id, name and account (the same 7003 for an unknown, malformed or foreign id). */
  ref(caller: Caller, zoneId: string, path: string): Promise<{ id: string; name: string; account_id: string }> {
    return this.owned(ZONE_REF_BY_ID, caller, zoneId, path);
  }

  /** The row `template` reads for the zone, when the zone belongs to one of the caller's accounts; else 7003. */
  private async owned<Row extends { account_id: string }>(template: QueryTemplate<{ zoneId: string }, Row>, caller: Caller, zoneId: string, path: string): Promise<Row> {
    if (!isId(zoneId) || caller.accountIds.length === 0) throw zoneNotFound(path);
    const row = await template.executeTakeFirst(this.db, { zoneId });
    if (!row || !caller.accountIds.includes(row.account_id)) throw zoneNotFound(path);
    return row;
  }

  /** One page of the caller's zones and the number of matches. */
  async list(caller: Caller, q: ZoneListQuery): Promise<{ zones: ZoneWithAccount[]; total: number }> {
    const scope = caller.zoneScope;
    if (caller.accountIds.length === 0 || (scope && !scope.all && scope.accountIds.length + scope.zoneIds.length === 0)) return { zones: [], total: 0 };
    let query = this.db.selectFrom('zones')
      .innerJoin('accounts', 'accounts.id', 'zones.account_id')
      .where('zones.account_id', 'in', caller.accountIds);
    if (scope && !scope.all) {
      query = query.where((eb) => eb.or([
        ...(scope.accountIds.length > 0 ? [eb('zones.account_id', 'in', scope.accountIds)] : []),
        ...(scope.zoneIds.length > 0 ? [eb('zones.id', 'in', scope.zoneIds)] : []),
      ]));
    }
    if (q.name !== undefined) { const filter = parseZoneNameFilter(q.name); query = query.where((eb) => zoneNameCondition(eb as never, filter)); }
    if (q.status !== undefined) query = query.where('zones.status', '=', q.status);
    if (q.accountId !== undefined) query = query.where('zones.account_id', '=', q.accountId);
    if (q.accountName !== undefined) query = query.where('accounts.name', '=', q.accountName);
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const column = { name: 'zones.name', status: 'zones.status', 'account.id': 'zones.account_id', 'account.name': 'accounts.name' } as const;
    const zones = await query.selectAll('zones').select('accounts.name as account_name')
      .orderBy(column[q.order], q.direction).orderBy('zones.name', 'asc')
      .limit(q.perPage).offset((q.page - 1) * q.perPage)
      .execute();
    return { zones, total: Number(count.n) };
  }

  /** The zones of these accounts, with their account (for a token whose deny policies hide single zones). */
  zonesOfAccounts(accountIds: readonly string[]): Promise<Array<{ id: string; account_id: string }>> {
    if (accountIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('zones').select(['id', 'account_id']).where('account_id', 'in', accountIds).execute();
  }

  /** The accounts that hold these zones (a token reaching a zone sees its account). */
  async accountsOfZones(zoneIds: readonly string[]): Promise<string[]> {
    if (zoneIds.length === 0) return [];
    const rows = await this.db.selectFrom('zones').select('account_id').where('id', 'in', zoneIds).execute();
    return rows.map((r) => r.account_id);
  }

  /**
   * Deletes the caller's zone and all its records, Workers routes and bucket custom domains (the caller has checked
   * the zone with {@link get}; the edge serial tells every node's edge); zones below it that its delegations kept
   * active are decided again.
   */
  async delete(zoneId: string): Promise<void> {
    const name = await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('zones').select(['name']).where('id', '=', zoneId).executeTakeFirst();
      await trx.deleteFrom('r2_domains').where('zone_id', '=', zoneId).execute();
      await trx.deleteFrom('workers_routes').where('zone_id', '=', zoneId).execute();
      await bumpEdgeSerial(trx);
      await trx.deleteFrom('dns_records').where('zone_id', '=', zoneId).execute();
      await deleteZoneChanges(trx, zoneId);
      await trx.deleteFrom('secondary_dns_outgoing').where('zone_id', '=', zoneId).execute();
      await trx.deleteFrom('secondary_dns_incoming').where('zone_id', '=', zoneId).execute();
      await trx.deleteFrom('zone_journal').where('zone_id', '=', zoneId).execute();
      await trx.deleteFrom('zones').where('id', '=', zoneId).execute();
      return row?.name;
    });
    this.changeFeed.publish({ zoneId, kind: 'deleted' });
    if (name !== undefined) await this.ownership.reconsiderBelow(name, false);
  }
}

