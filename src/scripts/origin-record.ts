/**
 * The DNS record a proxied hostname without a Worker is served from: the A, AAAA or CNAME records at the name
 * (A first, then AAAA, then CNAME), or, when nothing at all exists at the name, those of the closest wildcard
 * (`*.<parent>`, nearest parent first), as the DNS server would answer.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The record the origin is taken from. */
export interface OriginRecord { content: string; proxied: boolean; type: string }

const ORDER = ['A', 'AAAA', 'CNAME'];

/** The origin record of `host` in `zone`, or undefined when the name has no address record. */
export async function findOriginRecord(db: Kysely<Database>, zone: { id: string; name: string }, host: string): Promise<OriginRecord | undefined> {
  const labels = host.split('.');
  const zoneLabels = zone.name.split('.').length;
  const wildcards: string[] = [];
  for (let i = 1; labels.length - i >= zoneLabels; i++) wildcards.push(`*.${labels.slice(i).join('.')}`);
  const rows = await db.selectFrom('dns_records').select(['name', 'type', 'content', 'proxied'])
    .where('zone_id', '=', zone.id).where('name', 'in', [host, ...wildcards]).execute();
  const at = (name: string) => rows.filter((r) => r.name === name);
  const pick = (list: typeof rows): OriginRecord | undefined => {
    const sorted = list.filter((r) => ORDER.includes(r.type)).sort((a, b) => ORDER.indexOf(a.type) - ORDER.indexOf(b.type));
    const r = sorted.find((x) => x.proxied === 1) ?? sorted[0];
    return r && { content: r.content, proxied: r.proxied === 1, type: r.type };
  };
  if (at(host).length > 0) return pick(at(host));
  for (const w of wildcards) if (at(w).length > 0) return pick(at(w));
  return undefined;
}
