/**
 * The v4 JSON form of a DNS record, in the key order the production service uses (reference §5.2):
 * `id, name, type, content, [data], [priority], proxiable, proxied, ttl, settings, meta, comment, tags,
 * created_on, modified_on, [comment_modified_on], [tags_modified_on]`, shaped for the request's api date:
 * `zone_id`/`zone_name` before 2024-11-30, `locked: false` before 2024-07-14, SRV `data.service/proto/name`
 * before 2024-05-31 (schedule entries in deprecation/schedule.ts).
 */
import type { DnsRecord } from '../dns/record.js';
import { PROXIABLE_TYPES } from '../dns/record.js';
import { oldBehaviourApplies } from '../deprecation/schedule.js';
import { srvNameParts } from '../dns/record-types/index.js';

/** Types whose response carries a top-level `priority`. */
const PRIORITY_TYPES = new Set(['MX', 'URI', 'SRV']);

/** The record object of API responses. */
export function recordView(r: DnsRecord, zoneName: string, apiDate: string): Record<string, unknown> {
  const out: Record<string, unknown> = { id: r.id };
  if (oldBehaviourApplies('dns-records-zone-fields', apiDate)) {
    out.zone_id = r.zoneId;
    out.zone_name = zoneName;
  }
  out.name = r.name;
  out.type = r.type;
  out.content = r.content;
  if (r.data !== null) out.data = r.type === 'SRV' && oldBehaviourApplies('srv-data-fields', apiDate) ? withSrvNameFields(r.data, r.name) : r.data;
  if (r.priority !== null && (PRIORITY_TYPES.has(r.type) || r.data === null)) out.priority = r.priority;
  out.proxiable = PROXIABLE_TYPES.has(r.type);
  out.proxied = r.proxied;
  out.ttl = r.ttl;
  if (oldBehaviourApplies('dns-records-locked', apiDate)) out.locked = false;
  out.settings = r.type === 'CNAME' ? { flatten_cname: false, ...r.settings } : { ...r.settings };
  out.meta = r.meta;
  out.comment = r.comment;
  out.tags = r.tags;
  out.created_on = r.createdOn;
  out.modified_on = r.modifiedOn;
  if (r.commentModifiedOn !== null && r.comment !== null) out.comment_modified_on = r.commentModifiedOn;
  if (r.tagsModifiedOn !== null && r.tags.length > 0) out.tags_modified_on = r.tagsModifiedOn;
  return out;
}

/** SRV `data` with the pre-2024-05-31 fields `service`, `proto` and `name` taken from the owner name. */
function withSrvNameFields(data: Record<string, unknown>, owner: string): Record<string, unknown> {
  const parts = srvNameParts(owner);
  return parts ? { ...data, ...parts } : data;
}
