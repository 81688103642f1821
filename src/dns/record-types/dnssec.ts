/**
 * The DNSSEC and certificate types with numeric fields and one key blob: DS (RFC 4034 §5, hex digest whose
 * length follows the digest type), DNSKEY (RFC 4034 §2, base64 key), CERT (RFC 4398, base64 certificate).
 * Hex is stored uppercase, base64 without white space; content is the RFC presentation form.
 */
import { dataSpec, storedData } from './data-spec.js';
import { base64Field, hexField } from './fields.js';
import { expectCount, intToken } from './tokens.js';

/** Hex digits of the registered DS digest types (SHA-1, SHA-256, SHA-384). */
const DS_DIGEST_HEX: Record<number, number> = { 1: 40, 2: 64, 4: 96 };

/** DS: delegation signer. */
export const DS_SPEC = dataSpec('DS', {
  build(r) {
    const key_tag = r.int('key_tag', 0, 65535);
    const algorithm = r.int('algorithm', 0, 255);
    const digest_type = r.int('digest_type', 0, 255);
    const want = digest_type !== undefined ? DS_DIGEST_HEX[digest_type] : undefined;
    const digest = r.str('digest', (s) => hexField(s, want !== undefined ? [want] : undefined));
    if (key_tag === undefined || algorithm === undefined || digest_type === undefined || digest === undefined) return undefined;
    return { content: `${key_tag} ${algorithm} ${digest_type} ${digest}`, data: { key_tag, algorithm, digest_type, digest }, priority: null };
  },
  toPresentation: (v) => { const d = storedData(v); return `${d.key_tag} ${d.algorithm} ${d.digest_type} ${d.digest}`; },
  parsePresentation(tokens) {
    expectCount('DS', tokens, 4, true);
    return { data: { key_tag: intToken('DS', tokens[0]), algorithm: intToken('DS', tokens[1]), digest_type: intToken('DS', tokens[2]), digest: tokens.slice(3).join('') } };
  },
});

/** DNSKEY: a zone's public key. */
export const DNSKEY_SPEC = dataSpec('DNSKEY', {
  build(r) {
    const flags = r.int('flags', 0, 65535);
    const protocol = r.int('protocol', 0, 255);
    const algorithm = r.int('algorithm', 0, 255);
    const public_key = r.str('public_key', base64Field);
    if (flags === undefined || protocol === undefined || algorithm === undefined || public_key === undefined) return undefined;
    return { content: `${flags} ${protocol} ${algorithm} ${public_key}`, data: { flags, protocol, algorithm, public_key }, priority: null };
  },
  toPresentation: (v) => { const d = storedData(v); return `${d.flags} ${d.protocol} ${d.algorithm} ${d.public_key}`; },
  parsePresentation(tokens) {
    expectCount('DNSKEY', tokens, 4, true);
    return { data: { flags: intToken('DNSKEY', tokens[0]), protocol: intToken('DNSKEY', tokens[1]), algorithm: intToken('DNSKEY', tokens[2]), public_key: tokens.slice(3).join('') } };
  },
});

/** CERT: a certificate or CRL. */
export const CERT_SPEC = dataSpec('CERT', {
  build(r) {
    const type = r.int('type', 0, 65535);
    const key_tag = r.int('key_tag', 0, 65535);
    const algorithm = r.int('algorithm', 0, 255);
    const certificate = r.str('certificate', base64Field);
    if (type === undefined || key_tag === undefined || algorithm === undefined || certificate === undefined) return undefined;
    return { content: `${type} ${key_tag} ${algorithm} ${certificate}`, data: { type, key_tag, algorithm, certificate }, priority: null };
  },
  toPresentation: (v) => { const d = storedData(v); return `${d.type} ${d.key_tag} ${d.algorithm} ${d.certificate}`; },
  parsePresentation(tokens) {
    expectCount('CERT', tokens, 4, true);
    return { data: { type: intToken('CERT', tokens[0]), key_tag: intToken('CERT', tokens[1]), algorithm: intToken('CERT', tokens[2]), certificate: tokens.slice(3).join('') } };
  },
});
