/**
 * The certificate-association types: TLSA (RFC 6698) and SMIMEA (RFC 8162), `data{usage, selector,
 * matching_type, certificate}` with a hex association (64 digits for SHA-256, 128 for SHA-512); and SSHFP
 * (RFC 4255), `data{algorithm, type, fingerprint}` (40 hex digits for SHA-1, 64 for SHA-256).
 */
import type { RecordType } from '../record.js';
import { dataSpec, storedData } from './data-spec.js';
import { hexField } from './fields.js';
import { expectCount, intToken } from './tokens.js';
import type { RecordTypeSpec } from './types.js';

const MATCHING_HEX: Record<number, number> = { 1: 64, 2: 128 };
const SSHFP_HEX: Record<number, number> = { 1: 40, 2: 64 };

/** A TLSA-shaped spec. */
function associationSpec(type: RecordType): RecordTypeSpec {
  return dataSpec(type, {
    build(r) {
      const usage = r.int('usage', 0, 255);
      const selector = r.int('selector', 0, 255);
      const matching_type = r.int('matching_type', 0, 255);
      const want = matching_type !== undefined ? MATCHING_HEX[matching_type] : undefined;
      const certificate = r.str('certificate', (s) => hexField(s, want !== undefined ? [want] : undefined));
      if (usage === undefined || selector === undefined || matching_type === undefined || certificate === undefined) return undefined;
      return { content: `${usage} ${selector} ${matching_type} ${certificate}`, data: { usage, selector, matching_type, certificate }, priority: null };
    },
    toPresentation: (v) => { const d = storedData(v); return `${d.usage} ${d.selector} ${d.matching_type} ${d.certificate}`; },
    parsePresentation(tokens) {
      expectCount(type, tokens, 4, true);
      return { data: { usage: intToken(type, tokens[0]), selector: intToken(type, tokens[1]), matching_type: intToken(type, tokens[2]), certificate: tokens.slice(3).join('') } };
    },
  });
}

/** TLSA: TLS certificate association. */
export const TLSA_SPEC = associationSpec('TLSA');
/** SMIMEA: S/MIME certificate association. */
export const SMIMEA_SPEC = associationSpec('SMIMEA');

/** SSHFP: SSH host key fingerprint. */
export const SSHFP_SPEC = dataSpec('SSHFP', {
  build(r) {
    const algorithm = r.int('algorithm', 0, 255);
    const type = r.int('type', 0, 255);
    const want = type !== undefined ? SSHFP_HEX[type] : undefined;
    const fingerprint = r.str('fingerprint', (s) => hexField(s, want !== undefined ? [want] : undefined));
    if (algorithm === undefined || type === undefined || fingerprint === undefined) return undefined;
    return { content: `${algorithm} ${type} ${fingerprint}`, data: { algorithm, type, fingerprint }, priority: null };
  },
  toPresentation: (v) => { const d = storedData(v); return `${d.algorithm} ${d.type} ${d.fingerprint}`; },
  parsePresentation(tokens) {
    expectCount('SSHFP', tokens, 3, true);
    return { data: { algorithm: intToken('SSHFP', tokens[0]), type: intToken('SSHFP', tokens[1]), fingerprint: tokens.slice(2).join('') } };
  },
});
