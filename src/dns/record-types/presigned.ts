/**
 * The records of a zone signed elsewhere (`dnssec_presigned`, docs/dns-server.md "Pre-signed zones"): RRSIG
 * (RFC 4034 §3), NSEC (§4), NSEC3 and NSEC3PARAM (RFC 5155 §3–4), and the signed SOA (RFC 1035 §3.3.13), which
 * the signatures over negative answers cover. Production has no such API types (it takes them in by zone
 * transfer); Stratus takes them through the API and zone import, only while the zone is pre-signed
 * (`zones/records-transaction.ts`). Names have no trailing dot, hex is uppercase, base64 has no white space,
 * NSEC3 hashes are uppercase base32hex, type lists are mnemonics (`TYPE<n>` for others, RFC 3597), RRSIG times
 * are `YYYYMMDDHHmmSS` (RFC 4034 §3.2).
 */
import { fromZoneFileName, toAbsolute } from '../names.js';
import { dataSpec, storedData } from './data-spec.js';
import { base64Field, hexField, type DataReader } from './fields.js';
import { expectCount, intToken } from './tokens.js';
import { rrTypeCode, rrTypeName } from './type-names.js';

/**
 * A domain name field (the root allowed): any labels of 1 to 63 printable octets, as a signer writes them
 * (`*` and `_` included), lowercased, no trailing dot.
 */
function nameField(s: string): { value: string } | { rule: string } {
  const t = s.trim();
  if (t === '.') return { value: '.' };
  const name = t.replace(/\.$/, '').toLowerCase();
  const labels = name.split('.');
  if (name.length > 253 || labels.some((l) => l.length === 0 || l.length > 63 || !/^[\x21-\x7e]+$/.test(l))) return { rule: 'must be a domain name of labels of 1 to 63 printable characters' };
  return { value: name };
}

/** A list of type mnemonics, normalized to known spellings in ascending code order. */
function typesField(s: string): { value: string } | { rule: string } {
  const names = s.trim().split(/\s+/).filter((t) => t !== '');
  const codes: number[] = [];
  for (const n of names) {
    const code = rrTypeCode(n);
    if (code === undefined) return { rule: `names an unknown type ${n} (use a mnemonic or TYPE<n>)` };
    codes.push(code);
  }
  return { value: [...new Set(codes)].sort((a, b) => a - b).map(rrTypeName).join(' ') };
}

/** An RRSIG time: `YYYYMMDDHHmmSS` or seconds since 1970, normalized to the former. */
function rrsigTime(s: string): { value: string } | { rule: string } {
  const t = s.trim();
  if (/^\d{14}$/.test(t)) {
    const d = Date.UTC(+t.slice(0, 4), +t.slice(4, 6) - 1, +t.slice(6, 8), +t.slice(8, 10), +t.slice(10, 12), +t.slice(12, 14));
    return Number.isNaN(d) || new Date(d).toISOString().replace(/\D/g, '').slice(0, 14) !== t ? { rule: 'is not a valid time' } : { value: t };
  }
  if (/^\d{1,10}$/.test(t) && Number(t) <= 0xffffffff) return { value: new Date(Number(t) * 1000).toISOString().replace(/\D/g, '').slice(0, 14) };
  return { rule: 'must be YYYYMMDDHHmmSS (UTC) or seconds since 1970' };
}

/** An RRSIG time field, given as `YYYYMMDDHHmmSS` or as seconds (a string or a number). */
function timeField(r: DataReader, field: string): string | undefined {
  const v = r.raw(field);
  if (v === undefined) return r.fail(field, 'is required (YYYYMMDDHHmmSS or seconds since 1970)');
  if (typeof v !== 'string' && typeof v !== 'number') return r.fail(field, 'must be YYYYMMDDHHmmSS or seconds since 1970');
  const t = rrsigTime(String(v));
  return 'rule' in t ? r.fail(field, t.rule) : t.value;
}

/** A salt: hex, or `-` / '' for none (stored ''). */
function saltField(s: string): { value: string } | { rule: string } {
  const t = s.trim();
  if (t === '-' || t === '') return { value: '' };
  const h = hexField(t);
  return 'value' in h && h.value.length <= 510 ? h : { rule: 'must be hex of at most 255 bytes, or -' };
}

/** A base32hex NSEC3 hash (RFC 4648 §7, no padding), uppercase. */
function hashField(s: string): { value: string } | { rule: string } {
  const t = s.trim().toUpperCase();
  return /^[0-9A-V]{1,408}$/.test(t) ? { value: t } : { rule: 'must be base32hex without padding' };
}

const shownSalt = (salt: string): string => (salt === '' ? '-' : salt);

function nsec3Params(r: DataReader) {
  return { algorithm: r.int('algorithm', 0, 255), flags: r.int('flags', 0, 255), iterations: r.int('iterations', 0, 65535), salt: r.str('salt', saltField) };
}

/** RRSIG: a signature over one RRset. */
export const RRSIG_SPEC = dataSpec('RRSIG', {
  build(r) {
    const type_covered = r.str('type_covered', (s) => {
      const code = rrTypeCode(s.trim());
      return code === undefined ? { rule: 'must be a type mnemonic or TYPE<n>' } : { value: rrTypeName(code) };
    });
    const algorithm = r.int('algorithm', 0, 255);
    const labels = r.int('labels', 0, 255);
    const original_ttl = r.int('original_ttl', 0, 0xffffffff);
    const expiration = timeField(r, 'expiration');
    const inception = timeField(r, 'inception');
    const key_tag = r.int('key_tag', 0, 65535);
    const signer_name = r.str('signer_name', nameField);
    const signature = r.str('signature', base64Field);
    if ([type_covered, algorithm, labels, original_ttl, expiration, inception, key_tag, signer_name, signature].some((v) => v === undefined)) return undefined;
    const data = { type_covered, algorithm, labels, original_ttl, expiration, inception, key_tag, signer_name, signature };
    return { content: `${type_covered} ${algorithm} ${labels} ${original_ttl} ${expiration} ${inception} ${key_tag} ${signer_name} ${signature}`, data, priority: null };
  },
  toPresentation: (v) => {
    const d = storedData(v);
    return `${d.type_covered} ${d.algorithm} ${d.labels} ${d.original_ttl} ${d.expiration} ${d.inception} ${d.key_tag} ${toAbsolute(String(d.signer_name))} ${d.signature}`;
  },
  parsePresentation(tokens, origin) {
    expectCount('RRSIG', tokens, 9, true);
    return {
      data: {
        type_covered: tokens[0], algorithm: intToken('RRSIG', tokens[1]), labels: intToken('RRSIG', tokens[2]), original_ttl: intToken('RRSIG', tokens[3]),
        expiration: tokens[4], inception: tokens[5], key_tag: intToken('RRSIG', tokens[6]), signer_name: fromZoneFileName(tokens[7]!, origin),
        signature: tokens.slice(8).join(''),
      },
    };
  },
});

/** NSEC: the next owner name of the zone and the types at this one. */
export const NSEC_SPEC = dataSpec('NSEC', {
  build(r) {
    const next_domain = r.str('next_domain', nameField);
    const types = r.str('types', typesField);
    if (next_domain === undefined || types === undefined) return undefined;
    return { content: `${next_domain} ${types}`, data: { next_domain, types }, priority: null };
  },
  toPresentation: (v) => { const d = storedData(v); return `${toAbsolute(String(d.next_domain))} ${d.types}`; },
  parsePresentation(tokens, origin) {
    expectCount('NSEC', tokens, 1, true);
    return { data: { next_domain: fromZoneFileName(tokens[0]!, origin), types: tokens.slice(1).join(' ') } };
  },
});

/** NSEC3: the next hashed owner name and the types at the name this one hashes. */
export const NSEC3_SPEC = dataSpec('NSEC3', {
  build(r) {
    const { algorithm, flags, iterations, salt } = nsec3Params(r);
    const next_hashed_owner = r.str('next_hashed_owner', hashField);
    const types = r.str('types', (s) => (s.trim() === '' ? { value: '' } : typesField(s)));
    if (algorithm === undefined || flags === undefined || iterations === undefined || salt === undefined || next_hashed_owner === undefined || types === undefined) return undefined;
    const content = `${algorithm} ${flags} ${iterations} ${shownSalt(salt)} ${next_hashed_owner}${types ? ` ${types}` : ''}`;
    return { content, data: { algorithm, flags, iterations, salt, next_hashed_owner, types }, priority: null };
  },
  toPresentation: (v) => v.content,
  parsePresentation(tokens) {
    expectCount('NSEC3', tokens, 5, true);
    return {
      data: {
        algorithm: intToken('NSEC3', tokens[0]), flags: intToken('NSEC3', tokens[1]), iterations: intToken('NSEC3', tokens[2]), salt: tokens[3],
        next_hashed_owner: tokens[4], types: tokens.slice(5).join(' '),
      },
    };
  },
});

/** NSEC3PARAM: the hash parameters of the zone's NSEC3 chain (at the apex). */
export const NSEC3PARAM_SPEC = dataSpec('NSEC3PARAM', {
  build(r) {
    const { algorithm, flags, iterations, salt } = nsec3Params(r);
    if (algorithm === undefined || flags === undefined || iterations === undefined || salt === undefined) return undefined;
    return { content: `${algorithm} ${flags} ${iterations} ${shownSalt(salt)}`, data: { algorithm, flags, iterations, salt }, priority: null };
  },
  toPresentation: (v) => v.content,
  parsePresentation(tokens) {
    expectCount('NSEC3PARAM', tokens, 4);
    return { data: { algorithm: intToken('NSEC3PARAM', tokens[0]), flags: intToken('NSEC3PARAM', tokens[1]), iterations: intToken('NSEC3PARAM', tokens[2]), salt: tokens[3] } };
  },
});

/** SOA: the signed zone's start of authority (served instead of Stratus's own while the zone is pre-signed). */
export const SOA_SPEC = dataSpec('SOA', {
  build(r) {
    const mname = r.str('mname', nameField);
    const rname = r.str('rname', nameField);
    const nums = ['serial', 'refresh', 'retry', 'expire', 'minimum'].map((f) => r.int(f, 0, 0xffffffff));
    if (mname === undefined || rname === undefined || nums.some((n) => n === undefined)) return undefined;
    const [serial, refresh, retry, expire, minimum] = nums as number[];
    return { content: `${mname} ${rname} ${nums.join(' ')}`, data: { mname, rname, serial, refresh, retry, expire, minimum }, priority: null };
  },
  toPresentation: (v) => {
    const d = storedData(v);
    return `${toAbsolute(String(d.mname))} ${toAbsolute(String(d.rname))} ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`;
  },
  parsePresentation(tokens, origin) {
    expectCount('SOA', tokens, 7);
    const [serial, refresh, retry, expire, minimum] = tokens.slice(2).map((t) => intToken('SOA', t));
    return { data: { mname: fromZoneFileName(tokens[0]!, origin), rname: fromZoneFileName(tokens[1]!, origin), serial, refresh, retry, expire, minimum } };
  },
});
