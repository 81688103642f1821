/**
 * Metadata of an upload, typed in the bucket page and shown on the object's details: custom metadata (key/value
 * pairs, sent as `cf-r2-custom-metadata` on the v4 object PUT and `x-amz-meta-*` on the S3 API's
 * CreateMultipartUpload) and HTTP metadata (Cache-Control, Content-Disposition, Content-Language,
 * Content-Encoding: the same headers on either path).
 */
import { Field } from '../ui';

/** One typed pair. */
export interface MetadataPair { key: string; value: string }

/** Characters a metadata key may hold (an HTTP header name's, so it travels as `x-amz-meta-KEY` too). */
const KEY = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** The pairs as an object; throws a clear error for a bad key, a repeated key or (over S3) a non-ASCII value. */
export function readMetadata(pairs: MetadataPair[], overS3: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of pairs) {
    const k = key.trim();
    if (k === '' && value === '') continue;
    if (!KEY.test(k)) throw new Error(`Metadata key "${k}": use letters, digits and - _ . (it is sent as an HTTP header name)`);
    if (overS3 && !/^[\x20-\x7e]*$/.test(value)) throw new Error(`Metadata value of "${k}": uploads in parts send it in an S3 header, which takes printable ASCII only (untick "In parts" to send it through the v4 API)`);
    if (Object.hasOwn(out, overS3 ? k.toLowerCase() : k)) throw new Error(`Metadata key "${k}" is given twice`);
    out[overS3 ? k.toLowerCase() : k] = value;
  }
  return out;
}

/** The `cf-r2-custom-metadata` header value: JSON with non-ASCII characters escaped (a header is Latin-1). */
export function metadataHeader(meta: Record<string, string>): string {
  return JSON.stringify(meta).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The pairs' fields, with add and remove buttons. */
export function CustomMetadataFields({ pairs, onChange }: { pairs: MetadataPair[]; onChange: (p: MetadataPair[]) => void }) {
  const set = (i: number, part: Partial<MetadataPair>) => onChange(pairs.map((p, j) => (j === i ? { ...p, ...part } : p)));
  return (
    <fieldset>
      <legend>Custom metadata</legend>
      {pairs.map((p, i) => (
        <div class="toolbar" key={i}>
          <Field label={`Metadata key ${i + 1}`}><input name={`meta-key-${i}`} value={p.key} onInput={(e) => set(i, { key: e.currentTarget.value })} /></Field>
          <Field label={`Metadata value ${i + 1}`}><input name={`meta-value-${i}`} value={p.value} onInput={(e) => set(i, { value: e.currentTarget.value })} size={30} /></Field>
          <button type="button" class="secondary" aria-label={`Remove metadata ${i + 1}`} onClick={() => onChange(pairs.filter((_, j) => j !== i))}>Remove</button>
        </div>
      ))}
      <button type="button" class="secondary" onClick={() => onChange([...pairs, { key: '', value: '' }])}>Add metadata</button>
    </fieldset>
  );
}

/** The HTTP metadata an upload may set (besides Content-Type, the file's), by header name. */
export const HTTP_FIELDS = ['cache-control', 'content-disposition', 'content-language', 'content-encoding'] as const;
/** Typed HTTP metadata, by header name. */
export type HttpMetadata = Partial<Record<typeof HTTP_FIELDS[number], string>>;

/** The headers of typed HTTP metadata (empty fields left out). */
export function httpHeaders(meta: HttpMetadata): Record<string, string> {
  return Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, (v ?? '').trim()]).filter(([, v]) => v !== ''));
}

const LABELS: Record<typeof HTTP_FIELDS[number], string> = {
  'cache-control': 'Cache-Control', 'content-disposition': 'Content-Disposition', 'content-language': 'Content-Language', 'content-encoding': 'Content-Encoding',
};

/** The HTTP metadata fields. */
export function HttpMetadataFields({ value, onChange }: { value: HttpMetadata; onChange: (m: HttpMetadata) => void }) {
  return (
    <fieldset>
      <legend>HTTP metadata</legend>
      <div class="toolbar">
        {HTTP_FIELDS.map((f) => (
          <Field key={f} label={LABELS[f]}><input name={`http-${f}`} value={value[f] ?? ''} onInput={(e) => onChange({ ...value, [f]: e.currentTarget.value })} /></Field>
        ))}
      </div>
    </fieldset>
  );
}
