/**
 * The zone-file export in the production service's format (reference dns-api.md §6.2): a `;;` header, the
 * SOA, the zone's NS records, then one `;; <TYPE> Records` section per type (types in alphabetical order,
 * records in DNS canonical name order, RFC 4034 §6.1), sections separated by a blank line. Fields are
 * tab-separated: `owner. ttl IN TYPE rdata[ ; attributes]`. Names are absolute with a trailing dot (the
 * production capture prints the SOA owner without one; Stratus writes it absolute so that the file loads
 * as-is in BIND, Knot or PowerDNS). TTL Auto is written `1`. Attributes: see attributes.ts.
 */
import { formatAttributes } from './attributes.js';

/** The SOA of the export. */
export interface ExportSoa {
  ttl: number;
  mname: string;
  /** Domain form (`dns.example.net`). */
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minTtl: number;
}

/** One record to write: its owner, type, TTL, RDATA text and attributes. */
export interface ExportRecord {
  name: string;
  type: string;
  ttl: number;
  /** RDATA in presentation form (host names absolute). */
  rdata: string;
  comment: string | null;
  tags: string[];
  /** Set for proxiable types only (then always written as `cf-proxied`). */
  proxied?: boolean;
  flattenCname?: boolean;
}

/** Everything an export is made of. */
export interface ExportInput {
  zoneName: string;
  exportedAt: Date;
  soa: ExportSoa;
  nameServers: readonly string[];
  nsTtl: number;
  records: readonly ExportRecord[];
}

const BOILERPLATE = [
  ';;',
  ';; This file is intended for use for informational and archival',
  ';; purposes ONLY and MUST be edited before use on a production',
  ';; DNS server.  In particular, you must:',
  ';;   -- update the SOA record with the correct authoritative name server',
  ';;   -- update the SOA record with the contact e-mail address information',
  ';;   -- update the NS record(s) with the authoritative name servers for this domain.',
  ';;',
  ';; For further information, please consult the BIND documentation',
  ';; located on the following website:',
  ';;',
  ';; http://www.isc.org/',
  ';;',
  ';; And RFC 1035:',
  ';;',
  ';; http://www.ietf.org/rfc/rfc1035.txt',
  ';;',
  ';; Please note that we do NOT offer technical support for any use',
  ';; of this zone data, the BIND documentation, or any other data',
  ';; contained herein.',
  ';;',
  ';; Use at your own risk.',
];

const abs = (name: string): string => (name.endsWith('.') ? name : `${name}.`);

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
function stamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** RFC 4034 §6.1 canonical order: compare labels right to left, case-insensitively. */
export function canonicalCompare(a: string, b: string): number {
  const la = a.toLowerCase().split('.').reverse();
  const lb = b.toLowerCase().split('.').reverse();
  for (let i = 0; i < Math.min(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return la[i]! < lb[i]! ? -1 : 1;
  }
  return la.length - lb.length;
}

function line(r: ExportRecord): string {
  const attrs = formatAttributes({ comment: r.comment, tags: r.tags, proxied: r.proxied, flattenCname: r.flattenCname });
  const base = `${abs(r.name)}\t${r.ttl}\tIN\t${r.type}\t${r.rdata}`;
  return attrs === '' ? base : `${base} ; ${attrs}`;
}

/** The export text. */
export function writeZoneFile(input: ExportInput): string {
  const s = input.soa;
  const out = [';;', `;; Domain:     ${abs(input.zoneName)}`, `;; Exported:   ${stamp(input.exportedAt)}`, ...BOILERPLATE];
  out.push(';; SOA Record');
  out.push(`${abs(input.zoneName)}\t${s.ttl}\tIN\tSOA\t${abs(s.mname)} ${abs(s.rname)} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minTtl}`);
  out.push('', ';; NS Records');
  for (const ns of input.nameServers) out.push(`${abs(input.zoneName)}\t${input.nsTtl}\tIN\tNS\t${abs(ns)}`);
  const byType = new Map<string, ExportRecord[]>();
  for (const r of input.records) {
    const list = byType.get(r.type) ?? [];
    list.push(r);
    byType.set(r.type, list);
  }
  const sorted = (list: ExportRecord[]): ExportRecord[] => [...list].sort((a, b) => canonicalCompare(a.name, b.name) || (a.rdata < b.rdata ? -1 : a.rdata > b.rdata ? 1 : 0));
  // User NS records (delegations) join the NS section.
  for (const r of sorted(byType.get('NS') ?? [])) out.push(line(r));
  byType.delete('NS');
  for (const type of [...byType.keys()].sort()) {
    out.push('', `;; ${type} Records`);
    for (const r of sorted(byType.get(type)!)) out.push(line(r));
  }
  return `${out.join('\n')}\n`;
}
