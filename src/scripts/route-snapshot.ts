/**
 * What the edge resolves requests with, loaded whole from the database and replaced whole when the edge
 * serial moves: the routes of every zone (parsed), each script's active traffic split and subdomain flag, and
 * the accounts' workers subdomains. Zones and DNS records are not in it: they are read per request, so
 * changes of records on any node count at once.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { parseRoutePattern, type MatchableRoute } from '../edge/route-match.js';
import type { TrafficEntry } from './script-rows.js';

/** A script as resolution needs it. */
export interface ScriptTarget {
  accountId: string;
  name: string;
  subdomainEnabled: boolean;
  /** The active deployment's split (empty when never deployed). */
  traffic: TrafficEntry[];
}

/** The snapshot. */
export interface RouteSnapshot {
  /** The serial it reflects. */
  serial: number;
  routesByZone: Map<string, MatchableRoute[]>;
  /** Keyed `<account id>/<script name>`. */
  scripts: Map<string, ScriptTarget>;
  /** Account id by workers subdomain. */
  accountBySubdomain: Map<string, string>;
}

/** Loads a snapshot (reads the serial first, so a change during the load is seen by the next poll). */
export async function loadRouteSnapshot(db: Kysely<Database>): Promise<RouteSnapshot> {
  const serialRow = await db.selectFrom('edge_serial').select('serial').where('id', '=', 1).executeTakeFirst();
  const routes = await db.selectFrom('workers_routes').select(['zone_id', 'pattern', 'script']).execute();
  const scripts = await db.selectFrom('workers_scripts').select(['id', 'account_id', 'name', 'subdomain_enabled']).execute();
  const active = await db.selectFrom('workers_deployments as d').select(['d.script_id', 'd.versions'])
    .where('d.seq', '=', (eb) => eb.selectFrom('workers_deployments as d2').select((e) => e.fn.max('d2.seq').as('m')).whereRef('d2.script_id', '=', 'd.script_id'))
    .execute();
  const subdomains = await db.selectFrom('workers_subdomains').select(['account_id', 'subdomain']).execute();

  const routesByZone = new Map<string, MatchableRoute[]>();
  for (const r of routes) {
    const pattern = parseRoutePattern(r.pattern);
    if (typeof pattern === 'string') continue; // stored patterns were validated; never fail a whole snapshot on one
    const list = routesByZone.get(r.zone_id) ?? [];
    list.push({ pattern, script: r.script });
    routesByZone.set(r.zone_id, list);
  }
  const trafficById = new Map(active.map((d) => [d.script_id, JSON.parse(d.versions) as TrafficEntry[]]));
  const scriptMap = new Map<string, ScriptTarget>();
  for (const s of scripts) {
    scriptMap.set(`${s.account_id}/${s.name}`, { accountId: s.account_id, name: s.name, subdomainEnabled: s.subdomain_enabled === 1, traffic: trafficById.get(s.id) ?? [] });
  }
  return {
    serial: Number(serialRow?.serial ?? 0),
    routesByZone,
    scripts: scriptMap,
    accountBySubdomain: new Map(subdomains.map((s) => [s.subdomain, s.account_id])),
  };
}

/** Picks a version of a split (weighted by percentage); undefined for an empty split. */
export function pickVersion(split: TrafficEntry[], random: () => number = Math.random): string | undefined {
  if (split.length <= 1) return split[0]?.version_id;
  let point = random() * 100;
  for (const entry of split) {
    point -= entry.percentage;
    if (point < 0) return entry.version_id;
  }
  return split[split.length - 1]!.version_id;
}
