/**
 * The record types the v4 API accepts for writing (src/dns/record.ts without the pre-signed ones) and the form
 * of each: `content` alone, content with a priority, or the fields of `data` (names as the API reads them).
 */

/** One field of a type's `data`. */
export interface DataField { key: string; label: string; number?: boolean }

/** How a type is entered. */
export interface TypeForm {
  /** Label of the content box (types entered as content). */
  content?: string;
  /** The type has a top-level priority (MX, URI). */
  priority?: boolean;
  /** The fields of `data` (data types). */
  data?: DataField[];
  /** Proxied may be on. */
  proxiable?: boolean;
  /** A hint under the form. */
  hint?: string;
}

const n = (key: string, label: string): DataField => ({ key, label, number: true });
const t = (key: string, label: string): DataField => ({ key, label });

/** Every writable type, in the API's order. */
export const TYPE_FORMS: Record<string, TypeForm> = {
  A: { content: 'IPv4 address', proxiable: true },
  AAAA: { content: 'IPv6 address', proxiable: true },
  CAA: { data: [n('flags', 'Flags'), t('tag', 'Tag'), t('value', 'Value')] },
  CERT: { data: [n('type', 'Certificate type'), n('key_tag', 'Key tag'), n('algorithm', 'Algorithm'), t('certificate', 'Certificate (base64)')] },
  CNAME: { content: 'Target', proxiable: true },
  DNSKEY: { data: [n('flags', 'Flags'), n('protocol', 'Protocol'), n('algorithm', 'Algorithm'), t('public_key', 'Public key (base64)')] },
  DS: { data: [n('key_tag', 'Key tag'), n('algorithm', 'Algorithm'), n('digest_type', 'Digest type'), t('digest', 'Digest (hex)')] },
  HTTPS: { data: [n('priority', 'Priority'), t('target', 'Target'), t('value', 'Parameters')] },
  LOC: {
    data: [n('lat_degrees', 'Latitude degrees'), n('lat_minutes', 'Latitude minutes'), n('lat_seconds', 'Latitude seconds'), t('lat_direction', 'Latitude direction (N or S)'),
      n('long_degrees', 'Longitude degrees'), n('long_minutes', 'Longitude minutes'), n('long_seconds', 'Longitude seconds'), t('long_direction', 'Longitude direction (E or W)'),
      n('altitude', 'Altitude (m)'), n('size', 'Size (m)'), n('precision_horz', 'Horizontal precision (m)'), n('precision_vert', 'Vertical precision (m)')],
  },
  MX: { content: 'Mail server', priority: true },
  NAPTR: { data: [n('order', 'Order'), n('preference', 'Preference'), t('flags', 'Flags'), t('service', 'Service'), t('regex', 'Regular expression'), t('replacement', 'Replacement')] },
  NS: { content: 'Name server' },
  OPENPGPKEY: { content: 'Public key (base64)' },
  PTR: { content: 'Domain name' },
  SMIMEA: { data: [n('usage', 'Usage'), n('selector', 'Selector'), n('matching_type', 'Matching type'), t('certificate', 'Certificate (hex)')] },
  SRV: { data: [n('priority', 'Priority'), n('weight', 'Weight'), n('port', 'Port'), t('target', 'Target')], hint: 'Name: _service._proto.name' },
  SSHFP: { data: [n('algorithm', 'Algorithm'), n('type', 'Fingerprint type'), t('fingerprint', 'Fingerprint (hex)')] },
  SVCB: { data: [n('priority', 'Priority'), t('target', 'Target'), t('value', 'Parameters')] },
  TLSA: { data: [n('usage', 'Usage'), n('selector', 'Selector'), n('matching_type', 'Matching type'), t('certificate', 'Certificate (hex)')] },
  TXT: { content: 'Text' },
  URI: { data: [n('weight', 'Weight'), t('target', 'Target')], priority: true },
};

/** The writable types. */
export const TYPES = Object.keys(TYPE_FORMS);

/** What a record form holds: every value as typed. */
export interface RecordFormValues {
  type: string;
  name: string;
  content: string;
  priority: string;
  data: Record<string, string>;
  ttl: string;
  proxied: boolean;
  comment: string;
  tags: string;
}

/** The create or replace body the form sends for its type (only the fields the type takes). */
export function recordBody(v: RecordFormValues): Record<string, unknown> {
  const form = TYPE_FORMS[v.type];
  if (!form) throw new Error(`Unknown record type ${v.type}`);
  const body: Record<string, unknown> = {
    type: v.type, name: v.name.trim() || '@', ttl: Number(v.ttl || 1), comment: v.comment || null,
    tags: v.tags.split(',').map((t) => t.trim()).filter(Boolean),
  };
  if (form.content) body.content = v.content;
  if (form.priority) body.priority = Number(v.priority);
  if (form.data) body.data = Object.fromEntries(form.data.map((f) => [f.key, f.number ? Number(v.data[f.key] ?? '') : (v.data[f.key] ?? '')]));
  if (form.proxiable) body.proxied = v.proxied;
  return body;
}
