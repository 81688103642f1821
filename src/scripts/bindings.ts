/**
 * Bindings of a version: validated at upload, stored with secret values sealed (secret-box.ts), shown without
 * them, and opened for the runtime. Supported types: `r2_bucket` (also `store_bucket`, Stratus's own name for
 * the same binding; `bucket_name` must be a bucket of the account), `plain_text`, `secret_text`, `json`, and
 * `inherit` (take the binding of that name from the latest version). Any other type is refused, naming the
 * binding and its type, never ignored.
 *
 * Carried over from the latest version: the types listed in `keep_bindings`; without `keep_bindings`,
 * `secret_text` bindings (production keeps secrets across deploys), unless the upload names them.
 */
import type { ScriptBinding } from '../edge/types.js';
import { invalidUpload } from './errors.js';

/** A binding as stored in `workers_versions.bindings`. */
export type StoredBinding =
  | { type: 'r2_bucket'; name: string; bucket_name: string }
  | { type: 'plain_text'; name: string; text: string }
  | { type: 'secret_text'; name: string; sealed: string }
  | { type: 'json'; name: string; json: unknown };

/** What validation needs from around it. */
export interface BindingContext {
  /** The latest version's bindings (null for a new script). */
  previous: StoredBinding[] | null;
  /** `keep_bindings` of the upload, if given. */
  keepTypes: string[] | undefined;
  /** Seals a secret value for the binding `name`. */
  seal(name: string, text: string): string;
  /** True when the account has a bucket of this name. */
  bucketExists(name: string): Promise<boolean>;
}

const SUPPORTED = ['r2_bucket', 'plain_text', 'secret_text', 'json', 'inherit'];
/** Largest `plain_text`/`secret_text` value and `json` text (production: 5 KiB per variable). */
export const MAX_BINDING_VALUE_BYTES = 5 * 1024;

/** Validates `raw` (metadata.bindings) into stored bindings, collecting every problem. */
export async function validateBindings(raw: unknown, ctx: BindingContext): Promise<StoredBinding[]> {
  if (!Array.isArray(raw)) throw invalidUpload('metadata.bindings must be an array');
  const problems: string[] = [];
  const out: StoredBinding[] = [];
  const names = new Set<string>();
  for (const [i, entry] of raw.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) { problems.push(`bindings[${i}] must be an object`); continue; }
    const b = entry as Record<string, unknown>;
    const name = b.name;
    const type = b.type;
    if (typeof name !== 'string' || name === '' || name.length > 255) { problems.push(`bindings[${i}] needs a "name" of 1 to 255 characters`); continue; }
    if (typeof type !== 'string') { problems.push(`binding ${name} needs a "type"`); continue; }
    if (names.has(name)) { problems.push(`binding ${name} is defined more than once`); continue; }
    names.add(name);
    const result = await one(name, type === 'store_bucket' ? 'r2_bucket' : type, b, ctx);
    if (typeof result === 'string') problems.push(result);
    else out.push(result);
  }
  if (problems.length > 0) throw invalidUpload(problems.join('; '));
  for (const kept of carriedOver(ctx)) if (!names.has(kept.name)) out.push(kept);
  return out;
}

async function one(name: string, type: string, b: Record<string, unknown>, ctx: BindingContext): Promise<StoredBinding | string> {
  const value = (field: string) => b[field];
  switch (type) {
    case 'r2_bucket': {
      const bucket = value('bucket_name');
      if (typeof bucket !== 'string' || bucket === '') return `binding ${name} of type r2_bucket must have a "bucket_name"`;
      const jurisdiction = value('jurisdiction');
      if (jurisdiction !== undefined && jurisdiction !== null && jurisdiction !== '' && jurisdiction !== 'default') {
        return `binding ${name} of type r2_bucket names jurisdiction "${String(jurisdiction)}"; Stratus buckets have no jurisdictions`;
      }
      if (!(await ctx.bucketExists(bucket))) return `binding ${name} of type r2_bucket references bucket "${bucket}", which does not exist in this account`;
      return { type: 'r2_bucket', name, bucket_name: bucket };
    }
    case 'plain_text':
    case 'secret_text': {
      const text = value('text');
      if (typeof text !== 'string') return `binding ${name} of type ${type} must have a string "text"`;
      if (Buffer.byteLength(text) > MAX_BINDING_VALUE_BYTES) return `binding ${name} of type ${type} is larger than ${MAX_BINDING_VALUE_BYTES} bytes`;
      return type === 'plain_text' ? { type, name, text } : { type, name, sealed: ctx.seal(name, text) };
    }
    case 'json': {
      if (!('json' in b)) return `binding ${name} of type json must have a "json" value`;
      if (Buffer.byteLength(JSON.stringify(b.json) ?? '') > MAX_BINDING_VALUE_BYTES) return `binding ${name} of type json is larger than ${MAX_BINDING_VALUE_BYTES} bytes`;
      return { type, name, json: b.json };
    }
    case 'inherit': {
      const from = typeof b.old_name === 'string' ? b.old_name : name;
      const found = ctx.previous?.find((p) => p.name === from);
      if (!found) return `binding ${name} of type inherit: the latest version has no binding named ${from}`;
      return { ...found, name };
    }
    default:
      return `binding ${name} of type ${type} is not supported by Stratus (supported: ${SUPPORTED.join(', ')})`;
  }
}

function carriedOver(ctx: BindingContext): StoredBinding[] {
  if (!ctx.previous) return [];
  const keep = new Set(ctx.keepTypes ?? ['secret_text']);
  return ctx.previous.filter((b) => keep.has(b.type));
}

/** A binding as the API shows it (secret values never leave). */
export function bindingView(b: StoredBinding): Record<string, unknown> {
  switch (b.type) {
    case 'r2_bucket': return { name: b.name, type: 'r2_bucket', bucket_name: b.bucket_name };
    case 'plain_text': return { name: b.name, type: 'plain_text', text: b.text };
    case 'secret_text': return { name: b.name, type: 'secret_text' };
    case 'json': return { name: b.name, type: 'json', json: b.json };
  }
}

/** A binding as the runtime needs it (`open` decrypts a sealed secret). */
export function runtimeBinding(b: StoredBinding, open: (name: string, sealed: string) => string): ScriptBinding {
  switch (b.type) {
    case 'r2_bucket': return { type: 'r2_bucket', name: b.name, bucketName: b.bucket_name };
    case 'plain_text': return { type: 'plain_text', name: b.name, text: b.text };
    case 'secret_text': return { type: 'secret_text', name: b.name, text: open(b.name, b.sealed) };
    case 'json': return { type: 'json', name: b.name, json: b.json };
  }
}
