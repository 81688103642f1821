/** OPENPGPKEY (RFC 7929): the content is one base64 OpenPGP transferable public key; white space is removed. */
import { CONTENT_INVALID, report } from './errors.js';
import { contentString } from './content.js';
import { base64Field } from './fields.js';
import type { RecordTypeSpec } from './types.js';

/** OPENPGPKEY: base64 content. */
export const OPENPGPKEY_SPEC: RecordTypeSpec = {
  type: 'OPENPGPKEY',
  usesData: false,
  validate(input, ctx) {
    const s = contentString('OPENPGPKEY', input.content, ctx.errors);
    if (s === undefined) return undefined;
    const r = base64Field(s);
    if ('rule' in r) return void report(ctx.errors, CONTENT_INVALID, { type: 'OPENPGPKEY', detail: 'the key must be non-empty base64' });
    return { content: r.value, data: null, priority: null };
  },
  toPresentation: (v) => v.content,
  parsePresentation(tokens) {
    if (tokens.length === 0) throw new Error('OPENPGPKEY RDATA needs the base64 key');
    return { content: tokens.join('') };
  },
};
