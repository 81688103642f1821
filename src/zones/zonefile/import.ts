/**
 * Zone-file import (reference dns-api.md §6.3) through the records service, in ONE transaction: every line
 * is validated exactly as an API create would be; the first bad line fails the whole import with its line
 * number in the message (code and status of the underlying error kept), and nothing is applied.
 *
 * Decisions:
 * - SOA lines and NS lines at the apex are skipped (Stratus serves its own SOA and name servers); they are
 *   neither errors nor counted. A pre-signed zone (`dnssec_presigned`) keeps them: its signatures cover the
 *   signer's SOA and apex NS, which it then serves (docs/dns-server.md "Pre-signed zones"); a file with an SOA
 *   line is a new signed zone and replaces the zone's SOA, DNSKEY, RRSIG, NSEC, NSEC3 and NSEC3PARAM records.
 * - A record identical to one already in the zone (or to an earlier line) is counted in
 *   `total_records_parsed` but not added again (not in `recs_added`), so importing the same file twice is
 *   harmless.
 * - `proxied` of the form applies to proxiable types (A, AAAA, CNAME) only; a line's `cf-proxied` tag
 *   overrides it (and `cf-proxied:true` on another type is the usual 9004 error).
 * - TTL: the line's, else `$TTL`, else Auto (1).
 * - CNAME lines are applied after the other lines (file order otherwise), so that a proxied CNAME may
 *   precede the address record it leads to.
 * - Names outside the zone are an error.
 */
import { PROXIABLE_TYPES, type RecordType } from '../../dns/record.js';
import { RECORD_TYPE_SPECS } from '../../dns/record-types/index.js';
import { AppError } from '../../shared/errors.js';
import { RecordValidationError } from '../record-body.js';
import type { RecordRequestContext, RecordsService, ZoneRef } from '../records-service.js';
import { lineError } from './errors.js';
import { parseZoneFile, type ParsedRecord } from './parser.js';

/** The records a new signed zone replaces in a pre-signed zone (docs/dns-server.md "Pre-signed zones"). */
const SIGNED_ZONE_TYPES = ['SOA', 'DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM'];

/** Largest zone file accepted, in bytes (production: 256 KiB). */
export const MAX_ZONE_FILE_BYTES = 262_144;

/** The import result of the v4 API. */
export interface ImportResult {
  recs_added: number;
  total_records_parsed: number;
}

/** Options of an import. */
export interface ImportOptions {
  /** The form's `proxied` (default false). */
  proxied: boolean;
  ctx: RecordRequestContext;
}

/** The same error with `Zone file line N: ` in front of every message. */
function atLine(err: unknown, line: number): unknown {
  if (!(err instanceof AppError)) return err;
  const all = err.all().map((e) => new AppError(e.code, `Zone file line ${line}: ${e.message}`, e.status, { chain: e.chain }));
  return err instanceof RecordValidationError ? new RecordValidationError(all) : new AppError(all[0]!.code, all[0]!.message, err.status, { others: all.slice(1), chain: err.chain });
}

/** The API body a zone-file line stands for. */
export function lineToBody(rec: ParsedRecord, formProxied: boolean): Record<string, unknown> {
  const type = rec.type as RecordType;
  let value;
  try {
    // The lexer's tokens have the form the per-type parsers take (quoted strings keep quotes and escapes).
    value = RECORD_TYPE_SPECS[type].parsePresentation(rec.rdata, rec.origin);
  } catch (err) {
    throw lineError(rec.line, `${type} record: ${(err as Error).message}`);
  }
  const body: Record<string, unknown> = {
    name: rec.name, ttl: rec.ttl ?? 1,
    proxied: rec.proxied ?? (formProxied && PROXIABLE_TYPES.has(type)),
    comment: rec.comment, tags: rec.tags, ...value, type,
  };
  if (rec.flattenCname) body.settings = { flatten_cname: true };
  return body;
}

/** True when `name` is the zone or below it. */
function inZone(name: string, zone: string): boolean {
  const n = name.toLowerCase();
  return n === zone || n.endsWith(`.${zone}`);
}

/** Imports a zone file's text into the zone. */
export async function importZoneFile(records: RecordsService, zone: ZoneRef, text: string, opts: ImportOptions): Promise<ImportResult> {
  const all = parseZoneFile(text, zone.name);
  for (const r of all) {
    if (!inZone(r.name, zone.name)) throw lineError(r.line, `owner name ${r.name} is outside the zone ${zone.name}`);
  }
  let parsed = all;
  const created = await records.transaction(zone, async (tx) => {
    const presigned = (await tx.dnssecSettings()).presigned;
    if (!presigned) parsed = all.filter((r) => r.type !== 'SOA' && !(r.type === 'NS' && r.name.toLowerCase() === zone.name));
    // A new signed zone (it has an SOA) replaces the signer's records of the last one: re-signing leaves no stale signature.
    else if (all.some((r) => r.type === 'SOA')) await tx.deleteTypes(SIGNED_ZONE_TYPES);
    const ordered = [...parsed.filter((r) => r.type !== 'CNAME'), ...parsed.filter((r) => r.type === 'CNAME')];
    const bodies = ordered.map((r) => ({ line: r.line, body: lineToBody(r, opts.proxied) }));
    // Validate every line; apply the ones before the first invalid line, so that the error reported is the
    // first one in application order whether it is a validation error or a conflict with the zone.
    const drafts = [];
    let invalid: unknown;
    for (const { line, body } of bodies) {
      try {
        drafts.push(tx.validate(body, opts.ctx, presigned));
      } catch (err) {
        invalid = atLine(err, line);
        break;
      }
    }
    const out = await tx.createBulk(drafts, true, (i, err) => atLine(err, bodies[i]!.line));
    if (invalid !== undefined) throw invalid;
    return out;
  });
  return { recs_added: created.filter((r) => r !== null).length, total_records_parsed: parsed.length };
}
