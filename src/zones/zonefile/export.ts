/**
 * Zone-file export (reference dns-api.md §6.2): the zone's records through the records service, the SOA
 * and NS the DNS server serves (the same settings reader, `dns/snapshot-settings.ts`, with the defaults of
 * the DNS settings: SOA ttl 3600, refresh 10000, retry 2400, expire 604800, min_ttl 1800, mname the first
 * name server, rname `dns.<domain of the first name server>`, ns_ttl 86400), written by writer.ts; a
 * pre-signed zone's stored SOA and apex NS instead of those.
 */
import { PROXIABLE_TYPES, type DnsRecord } from '../../dns/record.js';
import { toPresentation } from '../../dns/record-types/index.js';
import { readServingSettings } from '../../dns/snapshot-settings.js';
import { PER_PAGE } from '../record-filters.js';
import type { RecordsService } from '../records-service.js';
import { writeZoneFile, type ExportRecord } from './writer.js';

/** The zone facts an export needs (a stored zone row has them). */
export interface ExportZone {
  id: string;
  name: string;
  serial: number;
  /** JSON array of the zone's name servers. */
  name_servers: string;
  /** JSON of the zone's DNS settings. */
  dns_settings: string;
  /** JSON of the other zone settings. */
  zone_settings: string;
}

/** The export line of a stored record. */
export function exportRecord(r: DnsRecord): ExportRecord {
  const out: ExportRecord = { name: r.name, type: r.type, ttl: r.ttl, rdata: toPresentation(r), comment: r.comment, tags: r.tags };
  if (PROXIABLE_TYPES.has(r.type)) out.proxied = r.proxied;
  if (r.settings.flatten_cname) out.flattenCname = true;
  return out;
}

function nameServers(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** The export text of a zone at `now`. */
export async function exportZoneFile(records: RecordsService, zone: ExportZone, now: Date): Promise<string> {
  const { records: all } = await records.list(zone, { conditions: [], match: 'all', order: 'type', direction: 'asc', page: 1, perPage: PER_PAGE.max });
  const ns = nameServers(zone.name_servers);
  const settings = readServingSettings(zone.dns_settings, zone.zone_settings, ns);
  // A pre-signed zone stores its signer's SOA and apex NS (the ones it serves): those are exported instead.
  const stored = all.find((r) => r.type === 'SOA');
  const d = (stored?.data ?? {}) as Record<string, number | string>;
  const soa = stored
    ? { ttl: stored.ttl, mname: String(d.mname), rname: String(d.rname), serial: Number(d.serial), refresh: Number(d.refresh), retry: Number(d.retry), expire: Number(d.expire), minTtl: Number(d.minimum) }
    : { ...settings.soa, serial: zone.serial };
  const ownApexNs = stored !== undefined && all.some((r) => r.type === 'NS' && r.name === zone.name);
  return writeZoneFile({
    zoneName: zone.name,
    exportedAt: now,
    soa,
    nameServers: ownApexNs ? [] : ns,
    nsTtl: settings.nsTtl,
    records: all.filter((r) => r !== stored).map(exportRecord),
  });
}
