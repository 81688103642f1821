/**
 * Routes of zones (`/zones/:zone_id/workers/routes`) and of scripts (`PUT …/workers/scripts/:name/routes`,
 * which wrangler sends on deploy). A pattern must be valid (edge/route-match.ts) and lie inside its zone; it
 * is unique per zone; its script, when given, must be a script of the zone's account. Every write bumps the
 * edge serial.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, WorkersRoutesTable } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { isoTimestamp } from '../shared/clock.js';
import { isId, newId } from '../shared/ids.js';
import { AppError } from '../shared/errors.js';
import { parseRoutePattern, patternInZone, type RoutePattern } from '../edge/route-match.js';
import { WORKERS_CODES, scriptNotFound } from './errors.js';
import { findScript } from './script-rows.js';
import { checkScriptName, type ScriptsService } from './scripts-service.js';

/** A stored route. */
export type RouteRow = Selectable<WorkersRoutesTable>;

/** A zone as routes need it. */
export interface RouteZone { id: string; name: string; account_id: string }

/** The route object of the API. */
export function routeView(r: RouteRow): Record<string, unknown> {
  return { id: r.id, pattern: r.pattern, ...(r.script !== null ? { script: r.script } : {}) };
}

/** The service. */
export class RoutesService {
  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock, private readonly scripts: ScriptsService) {}

  /** Routes of the zone, by pattern. */
  list(zoneId: string): Promise<RouteRow[]> {
    return this.db.selectFrom('workers_routes').selectAll().where('zone_id', '=', zoneId).orderBy('pattern').execute();
  }

  /** One route of the zone, or 404. */
  async get(zoneId: string, routeId: string): Promise<RouteRow> {
    const row = !isId(routeId) ? undefined : await this.db.selectFrom('workers_routes').selectAll().where('zone_id', '=', zoneId).where('id', '=', routeId).executeTakeFirst();
    if (!row) throw new AppError(WORKERS_CODES.routeNotFound, 'Route not found', 404);
    return row;
  }

  /** Creates a route in the zone. */
  async create(zone: RouteZone, body: Record<string, unknown>): Promise<RouteRow> {
    const { pattern, script } = await this.checkBody(zone, body);
    const row: RouteRow = { id: newId(), zone_id: zone.id, pattern: pattern.pattern, script, created_on: isoTimestamp(this.clock.now()) };
    await this.scripts.commit(async (trx) => {
      await this.refuseDuplicate(trx, zone.id, pattern.pattern, undefined);
      await trx.insertInto('workers_routes').values(row).execute();
    });
    return row;
  }

  /** Replaces a route's pattern and script. */
  async update(zone: RouteZone, routeId: string, body: Record<string, unknown>): Promise<RouteRow> {
    await this.get(zone.id, routeId);
    const { pattern, script } = await this.checkBody(zone, body);
    await this.scripts.commit(async (trx) => {
      await this.refuseDuplicate(trx, zone.id, pattern.pattern, routeId);
      await trx.updateTable('workers_routes').set({ pattern: pattern.pattern, script }).where('id', '=', routeId).execute();
    });
    return this.get(zone.id, routeId);
  }

  /** Deletes a route. */
  async delete(zoneId: string, routeId: string): Promise<void> {
    await this.get(zoneId, routeId);
    await this.scripts.commit((trx) => trx.deleteFrom('workers_routes').where('id', '=', routeId).execute());
  }

  /** Routes of the account's zones that run the script. */
  async ofScript(accountId: string, script: string): Promise<(RouteRow & { zone_name: string })[]> {
    return this.db.selectFrom('workers_routes').innerJoin('zones', 'zones.id', 'workers_routes.zone_id')
      .selectAll('workers_routes').select('zones.name as zone_name')
      .where('zones.account_id', '=', accountId).where('workers_routes.script', '=', script).orderBy('pattern').execute();
  }

  /**
   * `PUT …/scripts/:name/routes`: the script's routes become exactly `list` (`{pattern, zone_id?, zone_name?}`);
   * each goes to the named zone, else to the account's zone holding the pattern's host (longest suffix).
   */
  async replaceForScript(accountId: string, scriptName: string, list: unknown): Promise<(RouteRow & { zone_name: string })[]> {
    await this.scripts.require(accountId, scriptName);
    if (!Array.isArray(list)) throw invalidRoute('The body must be an array of routes ({"pattern": "example.com/*"})');
    const zones = await this.db.selectFrom('zones').select(['id', 'name', 'account_id']).where('account_id', '=', accountId).execute();
    const wanted: { zone: RouteZone; pattern: RoutePattern }[] = [];
    for (const entry of list as Record<string, unknown>[]) {
      if (typeof entry !== 'object' || entry === null) throw invalidRoute('Each route must be an object with a "pattern"');
      if (entry.custom_domain === true) throw invalidRoute(`Custom domains are not supported by Stratus (route ${String(entry.pattern)}); use a route pattern and a proxied DNS record`);
      const pattern = parsePattern(entry.pattern);
      const zone = typeof entry.zone_id === 'string' ? zones.find((z) => z.id === entry.zone_id)
        : typeof entry.zone_name === 'string' ? zones.find((z) => z.name === String(entry.zone_name).toLowerCase())
          : zones.filter((z) => patternInZone(pattern, z.name)).sort((a, b) => b.name.length - a.name.length)[0];
      if (!zone) throw invalidRoute(`No zone of this account holds the route "${pattern.pattern}"`);
      if (!patternInZone(pattern, zone.name)) throw invalidRoute(`The route "${pattern.pattern}" is not inside zone ${zone.name}`);
      wanted.push({ zone, pattern });
    }
    const now = isoTimestamp(this.clock.now());
    await this.scripts.commit(async (trx) => {
      const zoneIds = zones.map((z) => z.id);
      if (zoneIds.length > 0) await trx.deleteFrom('workers_routes').where('script', '=', scriptName).where('zone_id', 'in', zoneIds).execute();
      for (const { zone, pattern } of wanted) {
        const taken = await trx.selectFrom('workers_routes').select(['id', 'script']).where('zone_id', '=', zone.id).where('pattern', '=', pattern.pattern).executeTakeFirst();
        if (taken?.script === scriptName) continue;
        if (taken) throw new AppError(WORKERS_CODES.duplicateRoute, `The route "${pattern.pattern}" is already assigned to ${taken.script === null ? 'no Worker (a no-script route)' : `the Worker "${taken.script}"`}`, 400);
        await trx.insertInto('workers_routes').values({ id: newId(), zone_id: zone.id, pattern: pattern.pattern, script: scriptName, created_on: now }).execute();
      }
    });
    return this.ofScript(accountId, scriptName);
  }

  private async checkBody(zone: RouteZone, body: Record<string, unknown>): Promise<{ pattern: RoutePattern; script: string | null }> {
    const pattern = parsePattern(body.pattern);
    if (!patternInZone(pattern, zone.name)) throw invalidRoute(`The route "${pattern.pattern}" is not inside zone ${zone.name}: route patterns must include the zone's name`);
    const script = body.script === undefined || body.script === null || body.script === '' ? null : body.script;
    if (script !== null && typeof script !== 'string') throw invalidRoute('"script" must be the name of a Worker');
    if (script !== null) checkScriptName(script);
    if (script !== null && !(await findScript(this.db, zone.account_id, script))) throw scriptNotFound();
    return { pattern, script };
  }

  private async refuseDuplicate(trx: Transaction<Database>, zoneId: string, pattern: string, except: string | undefined): Promise<void> {
    let q = trx.selectFrom('workers_routes').select('id').where('zone_id', '=', zoneId).where('pattern', '=', pattern);
    if (except !== undefined) q = q.where('id', '!=', except);
    if (await q.executeTakeFirst()) throw new AppError(WORKERS_CODES.duplicateRoute, `A route with the pattern "${pattern}" already exists in this zone.`, 400);
  }
}

function invalidRoute(message: string): AppError {
  return new AppError(WORKERS_CODES.invalidRoute, message, 400);
}

function parsePattern(raw: unknown): RoutePattern {
  const parsed = parseRoutePattern(typeof raw === 'string' ? raw : '');
  if (typeof parsed === 'string') throw invalidRoute(`Invalid route pattern ${JSON.stringify(raw ?? null)}: ${parsed}`);
  return parsed;
}
