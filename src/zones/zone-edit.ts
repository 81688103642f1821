/**
 * `PATCH /zones/:zone_id`: what a zone edit body may change and how it is checked. Production documents
 * `paused`, `type`, `vanity_name_servers` and the deprecated `plan: {id}`, "one property at a time"; Stratus
 * accepts any of them together (clients such as older Terraform providers send `paused` with another field)
 * and collects every problem (code 1102 for a bad type, as on create; 1115 for the rest).
 *
 * Storage: `type` is the `zones.type` column. `paused` and `vanity_name_servers` are zone attributes that are
 * not columns: they live in `zones.zone_settings` under the reserved key {@link ZONE_ATTRIBUTES_KEY} (no
 * setting id starts with `_`), so they travel with the zone's settings to every DNS server on the change feed
 * and change log. While a zone is paused its proxied records answer their own (origin) contents, as
 * production answers for a paused zone (`dns/zone-node.ts`).
 */
import { AppError } from '../shared/errors.js';
import { isObject, type Json } from './settings/shape.js';
import { ZONE_TYPES } from './zones-service.js';

/** Key of the zone attributes inside `zones.zone_settings`. */
export const ZONE_ATTRIBUTES_KEY = '_zone';

/** Code of a bad zone edit body (other than the type). */
export const INVALID_ZONE_EDIT = 1115;

/** The single plan Stratus has (the production Free plan's id and legacy id). */
export const FREE_PLAN = { id: '0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee', name: 'Free Website', legacy_id: 'free' } as const;

/** At most this many vanity name servers (production's zones show two to five). */
const MAX_VANITY = 5;

const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** The zone attributes that are not columns. */
export interface ZoneAttributes {
  paused: boolean;
  vanity_name_servers: string[];
}

/** The attributes stored in a parsed `zones.zone_settings` (defaults: not paused, no vanity name servers). */
export function readZoneAttributes(zoneSettings: Json): ZoneAttributes {
  const raw = zoneSettings[ZONE_ATTRIBUTES_KEY];
  const a = isObject(raw) ? raw : {};
  return {
    paused: a.paused === true,
    vanity_name_servers: Array.isArray(a.vanity_name_servers) ? a.vanity_name_servers.filter((x): x is string => typeof x === 'string') : [],
  };
}

/** A checked zone edit: the fields the body changes. */
export interface ZoneEdit {
  paused?: boolean;
  type?: (typeof ZONE_TYPES)[number];
  vanity_name_servers?: string[];
}

const FIELDS = ['paused', 'type', 'vanity_name_servers', 'plan'];

/** Checks a PATCH body; throws every problem at once (the first error carries the others). */
export function parseZoneEdit(body: Json): ZoneEdit {
  const errors: AppError[] = [];
  const bad = (message: string, code = INVALID_ZONE_EDIT) => errors.push(new AppError(code, message));
  const edit: ZoneEdit = {};
  const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
  for (const k of unknown) bad(`Zone property ${JSON.stringify(k)} cannot be changed: PATCH /zones/:zone_id changes ${FIELDS.join(', ')}`);
  if (unknown.length === 0 && !FIELDS.some((k) => k in body)) bad(`Send one of ${FIELDS.join(', ')} to change a zone`);
  if ('paused' in body) {
    if (typeof body.paused === 'boolean') edit.paused = body.paused;
    else bad(`Invalid paused ${JSON.stringify(body.paused)}: expected true or false`);
  }
  if ('type' in body) {
    if ((ZONE_TYPES as readonly unknown[]).includes(body.type)) edit.type = body.type as ZoneEdit['type'];
    else bad(`Invalid zone type ${JSON.stringify(body.type)}: use full, partial or secondary`, 1102);
  }
  if ('vanity_name_servers' in body) {
    const v = body.vanity_name_servers;
    if (!Array.isArray(v) || v.length > MAX_VANITY || !v.every((h) => typeof h === 'string' && HOST.test(h.replace(/\.$/, '')))) {
      bad(`Invalid vanity_name_servers ${JSON.stringify(v)}: expected an array of at most ${MAX_VANITY} host names (ns1.example.com)`);
    } else {
      const hosts = (v as string[]).map((h) => h.toLowerCase().replace(/\.$/, ''));
      if (new Set(hosts).size !== hosts.length) bad('Invalid vanity_name_servers: a host name is listed twice');
      else edit.vanity_name_servers = hosts;
    }
  }
  if ('plan' in body) {
    const p = body.plan;
    if (!isObject(p) || p.id !== FREE_PLAN.id) {
      bad(`Invalid plan ${JSON.stringify(p)}: Stratus has one plan, {"id": "${FREE_PLAN.id}"} (${FREE_PLAN.name})`);
    }
  }
  if (errors.length > 0) throw new AppError(errors[0]!.code, errors[0]!.message, 400, { others: errors.slice(1) });
  return edit;
}

/** The zone settings JSON with the edit's attributes applied (a new object). */
export function applyZoneAttributes(zoneSettings: Json, edit: ZoneEdit): Json {
  const current = readZoneAttributes(zoneSettings);
  const next: ZoneAttributes = {
    paused: edit.paused ?? current.paused,
    vanity_name_servers: edit.vanity_name_servers ?? current.vanity_name_servers,
  };
  return { ...zoneSettings, [ZONE_ATTRIBUTES_KEY]: next };
}
