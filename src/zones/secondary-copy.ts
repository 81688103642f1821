/**
 * Writes a secondary zone's copy of its primary (secondary-dns/ pulls it by AXFR or IXFR) through the records
 * service's write path, in ONE transaction: readers never see half a copy, the serial, change log and change
 * feed follow as for any write, so every node's DNS server and the outgoing transfers serve the new copy.
 *
 * A full copy (AXFR) replaces the stored records: records the copy lacks are deleted, new ones added, the
 * unchanged ones kept (the change log carries only the difference). A difference (IXFR) deletes and adds the
 * records it names. Records are compared by owner, type, TTL and their normalized presentation, after the same
 * validation as a zone-file line (rdata text -> API value; the primary's TTL kept whatever it is); a record the API cannot hold (an unknown type, a
 * value it refuses) is skipped and reported, never half-applied. The SOA, apex NS and DNSSEC records are stored
 * and served as they come (the pre-signed path, dns-server.md).
 */
import type { RecordType } from '../dns/record.js';
import { isRecordType } from '../dns/record.js';
import { parsePresentation, toPresentation } from '../dns/record-types/index.js';
import type { RecordDraft } from './record-body.js';
import type { RecordsService, ZoneRef } from './records-service.js';
import type { RecordsTransaction } from './records-transaction.js';

/** A transferred record: owner (absolute, no trailing dot), type mnemonic, TTL, RDATA presentation text. */
export interface CopiedRecord {
  name: string;
  type: string;
  ttl: number;
  rdata: string;
}

/** What a copy changed. */
export interface CopyResult {
  added: number;
  deleted: number;
  /** Records not stored, with why (first few). */
  skipped: string[];
  skippedCount: number;
}

const API_DATE = '2100-01-01';

function keyOf(name: string, type: string, ttl: number, rdata: string): string {
  return `${name.toLowerCase()}|${type.toLowerCase()}|${ttl}|${rdata.toLowerCase()}`;
}

/** Turns copied records into drafts (through validation); the ones the API cannot hold go to `skipped`. */
function drafts(tx: RecordsTransaction, zone: ZoneRef, records: readonly CopiedRecord[], result: CopyResult): Map<string, RecordDraft> {
  const out = new Map<string, RecordDraft>();
  for (const r of records) {
    try {
      if (!isRecordType(r.type)) throw new Error(`type ${r.type} is not served by Stratus`);
      // A signature of a type not stored would be served with the wrong RRset (and TTL): left out with it.
      if (r.type === 'RRSIG' && !isRecordType(r.rdata.split(' ')[0] ?? '')) throw new Error(`the signature of ${r.rdata.split(' ')[0]} (a type not served by Stratus)`);
      const value = parsePresentation(r.type as RecordType, r.rdata, zone.name);
      // The primary's TTL is kept as it is (the API's range, 60 to 86400 or 1 for Auto, is for records written here).
      const draft = { ...tx.validate({ name: r.name, ttl: 300, proxied: false, ...value, type: r.type }, { apiDate: API_DATE, warnings: [] }, true), ttl: r.ttl };
      out.set(keyOf(draft.name, draft.type, draft.ttl, toPresentation(draft)), draft);
    } catch (err) {
      result.skippedCount++;
      if (result.skipped.length < 5) {
        const e = err as { message?: string; all?: () => Array<{ message: string }> };
        result.skipped.push(`${r.name} ${r.type}: ${e.all ? e.all().map((x) => x.message).join('; ') : String(e.message ?? err)}`);
      }
    }
  }
  return out;
}

/** The stored records of the zone by key (rows with the same key beyond the first are duplicates). */
async function stored(tx: RecordsTransaction): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const r of await tx.allRecords()) {
    const k = keyOf(r.name, r.type, r.ttl, toPresentation(r));
    const list = out.get(k);
    if (list) list.push(r.id);
    else out.set(k, [r.id]);
  }
  return out;
}

/**
 * Applies a transfer to a secondary zone: `full` (AXFR: the records are the whole zone) or `diff` (IXFR: what
 * to delete, then what to add, condensed). All in one transaction.
 */
export async function applySecondaryCopy(
  records: RecordsService,
  zone: ZoneRef,
  copy: { full: readonly CopiedRecord[] } | { deleted: readonly CopiedRecord[]; added: readonly CopiedRecord[] },
): Promise<CopyResult> {
  const result: CopyResult = { added: 0, deleted: 0, skipped: [], skippedCount: 0 };
  await records.transaction(zone, async (tx) => {
    const have = await stored(tx);
    let remove: string[] = [];
    let add: RecordDraft[] = [];
    if ('full' in copy) {
      const want = drafts(tx, zone, copy.full, result);
      for (const [k, ids] of have) remove.push(...(want.has(k) ? ids.slice(1) : ids));
      add = [...want].filter(([k]) => !have.has(k)).map(([, d]) => d);
    } else {
      const gone = drafts(tx, zone, copy.deleted, result);
      const fresh = drafts(tx, zone, copy.added, result);
      for (const k of gone.keys()) if (!fresh.has(k)) remove.push(...(have.get(k) ?? []));
      // The zone has one SOA: a new one replaces whatever is stored (even when the old one differs from the diff's).
      if ([...fresh.values()].some((d) => d.type === 'SOA')) for (const [k, ids] of have) if (k.startsWith(`${zone.name}|soa|`) && !fresh.has(k)) remove.push(...ids);
      add = [...fresh].filter(([k]) => !have.has(k)).map(([, d]) => d);
    }
    remove = [...new Set(remove)];
    for (const id of remove) await tx.delete(id);
    // CNAMEs last, as a zone-file import does (a CNAME's checks look at the names it leads to).
    add.sort((a, b) => Number(a.type === 'CNAME') - Number(b.type === 'CNAME'));
    await tx.createBulk(add, false);
    result.deleted = remove.length;
    result.added = add.length;
  }, { secondaryCopy: true });
  return result;
}
