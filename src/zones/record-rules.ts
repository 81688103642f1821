/**
 * Rules between records of a zone, checked inside the write transaction against the records already stored:
 *
 * - A CNAME shares its name with no other record: creating a CNAME where any record exists is 81053;
 *   creating anything where a CNAME exists is 81054.
 * - Below the apex, an NS record delegates its name: creating another type where NS records exist is 81056;
 *   creating NS where other types exist is 1112. (At the apex NS and other records live together.) DS is the
 *   exception: it belongs exactly at the delegation point, beside the NS records, and is served by the parent
 *   (RFC 4034 §5, RFC 4035 §2.4).
 * - An identical record (same type, name, content, priority) is 81058.
 * - The TXT records at one name hold at most 8,192 characters together (production's limit): 9526.
 * - CNAME chains are allowed. A proxied CNAME must end at an address: its target is followed through the
 *   zone's CNAMEs (at most {@link MAX_CHAIN} hops); the chain ends well at a name with A or AAAA records or at
 *   a name outside the zone (which Stratus cannot see and accepts, as the production service accepts
 *   external origins). It ends badly (1109) at a name of the zone without A, AAAA or CNAME, or in a loop.
 *   The rule is checked when the proxied CNAME is written, not again when its target changes later.
 */
import { AppError } from '../shared/errors.js';
import { PRESIGNED_TYPES } from '../dns/record.js';
import type { RecordDraft } from './record-body.js';
import { TXT_NAME_MAX_CHARACTERS, txtCharacters } from '../dns/record-types/index.js';
import { TXT_NAME_TOO_LONG, message } from '../dns/record-types/errors.js';

/** What the rules need of a stored record. */
export interface ExistingRecord {
  id: string;
  type: string;
  content: string;
  priority: number | null;
}

/** Most CNAME hops followed for a proxied CNAME. */
export const MAX_CHAIN = 16;

/** The link given with 81054, as production gives it. */
const SAME_NAME_DOC = 'https://developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/';

/** Checks the draft against the other records at its name (the record being replaced excluded). */
export function checkNameConflicts(draft: RecordDraft, all: readonly ExistingRecord[], zoneName: string): void {
  // RRSIG and NSEC live beside any data, a CNAME and a delegation's NS included (RFC 4035 §2.5, §2.3).
  const others = PRESIGNED_TYPES.has(draft.type) ? [] : all.filter((r) => !PRESIGNED_TYPES.has(r.type));
  if (PRESIGNED_TYPES.has(draft.type) && all.some((r) => r.type === draft.type && r.content.toLowerCase() === draft.content.toLowerCase())) {
    throw new AppError(81058, 'An identical record already exists.');
  }
  if (draft.type === 'CNAME' && others.length > 0) {
    const types = [...new Set(others.map((r) => r.type))].join(', ');
    throw new AppError(81053, others.some((r) => r.type === 'A' || r.type === 'AAAA' || r.type === 'CNAME')
      ? 'An A, AAAA, or CNAME record with that host already exists.'
      : `An A, AAAA, or CNAME record with that host already exists. (Records of type ${types} exist at ${draft.name}; a CNAME cannot share its name.)`);
  }
  if (draft.type !== 'CNAME' && others.some((r) => r.type === 'CNAME')) {
    throw new AppError(81054, `A CNAME record with that host already exists. For more details, refer to <${SAME_NAME_DOC}>.`);
  }
  if (draft.name !== zoneName) {
    if (draft.type !== 'NS' && draft.type !== 'DS' && others.some((r) => r.type === 'NS')) throw new AppError(81056, 'NS records with that host already exist.');
    if (draft.type === 'NS' && others.some((r) => r.type !== 'NS' && r.type !== 'DS')) {
      throw new AppError(1112, `Other records exist at ${draft.name}; an NS record below the apex delegates its name and cannot share it.`);
    }
  }
  if (others.some((r) => r.type === draft.type && r.content.toLowerCase() === draft.content.toLowerCase() && (r.priority ?? null) === (draft.priority ?? null))) {
    throw new AppError(81058, 'An identical record already exists.');
  }
  if (draft.type === 'TXT') {
    const length = others.reduce((n, r) => n + (r.type === 'TXT' ? txtCharacters(r.content) : 0), txtCharacters(draft.content));
    if (length > TXT_NAME_MAX_CHARACTERS) throw new AppError(TXT_NAME_TOO_LONG.code, message(TXT_NAME_TOO_LONG, { name: draft.name, length }));
  }
}

/** Looks up the types and contents of the records at a name of the zone. */
export type NameLookup = (name: string) => Promise<{ type: string; content: string }[]>;

/** True when `name` is the zone apex or below it. */
export function inZone(name: string, zoneName: string): boolean {
  return name === zoneName || name.endsWith(`.${zoneName}`);
}

/** Fails with 1109 unless a proxied CNAME's target ends at an address (see the module comment). */
export async function checkProxiedCname(draft: RecordDraft, zoneName: string, lookup: NameLookup): Promise<void> {
  if (draft.type !== 'CNAME' || !draft.proxied) return;
  const seen = new Set<string>([draft.name]);
  let target = draft.content.toLowerCase();
  for (let hop = 0; hop < MAX_CHAIN; hop++) {
    if (!inZone(target, zoneName)) return;
    if (seen.has(target)) break;
    seen.add(target);
    const records = await lookup(target);
    if (records.some((r) => r.type === 'A' || r.type === 'AAAA')) return;
    const next = records.find((r) => r.type === 'CNAME');
    if (!next) {
      throw new AppError(1109, `A proxied CNAME must lead to an A or AAAA record: ${target} has no A, AAAA or CNAME record in this zone.`);
    }
    target = next.content.toLowerCase();
  }
  throw new AppError(1109, `A proxied CNAME must lead to an A or AAAA record: the chain from ${draft.content} loops or is longer than ${MAX_CHAIN} hops.`);
}
