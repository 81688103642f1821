/**
 * The multipart body of a script upload (`PUT /accounts/:id/workers/scripts/:name`, `POST …/versions`), as
 * wrangler and the SDK send it: a `metadata` part (JSON: `main_module`, `compatibility_date`,
 * `compatibility_flags`, `bindings`, `keep_bindings`, `annotations`, …) and one part per module, its type
 * given by the part's content type (production's module MIME types):
 *
 * | content type | module |
 * |---|---|
 * | `application/javascript+module`, `text/javascript+module` | ES module |
 * | `application/javascript`, `text/javascript` | CommonJS module |
 * | `application/wasm` | WebAssembly |
 * | `text/plain` | text |
 * | `application/octet-stream` | data (ArrayBuffer) |
 * | `application/json` | JSON |
 * | `application/source-map` | source map (kept, not loaded) |
 *
 * The official SDK sends `metadata` flattened into bracketed fields (`metadata[main_module]`,
 * `metadata[bindings][][name]`, …) and modules as `files[]` parts named by their file name; both forms are read.
 *
 * Service-worker scripts (`body_part` instead of `main_module`: what wrangler sends for a script without ES
 * exports) are kept the same way, their main part a CommonJS-typed script (`application/javascript`); the runtime
 * gives them their bindings as globals and their `fetch` events (`runtime/workerd/limits-shim.ts`). The
 * metadata's `limits` (`cpu_ms`, `subrequests`) are checked and kept with the version (`limits.ts`). Python
 * modules are refused with a clear error. Modules are kept byte for byte.
 */
import type { ScriptModule } from '../edge/types.js';
import { isCalendarDate } from '../config/config.js';
import { AppError } from '../shared/errors.js';
import { WORKERS_CODES, invalidUpload } from './errors.js';
import { parseLimits, type StoredLimits } from './limits.js';

/** Most bytes of modules (source maps included) one version may have. */
export const MAX_SCRIPT_BYTES = 32 * 1024 * 1024;

/** Date used when an upload names no compatibility date (production: the oldest behaviour). */
export const DEFAULT_COMPATIBILITY_DATE = '2021-11-02';

/** A parsed upload. */
export interface ParsedUpload {
  mainModule: string;
  modules: ScriptModule[];
  compatibilityDate: string;
  compatibilityFlags: string[];
  /** The metadata's `bindings`, not yet validated. */
  bindings: unknown;
  /** The metadata's `keep_bindings` (binding types to carry over from the latest version), if given. */
  keepBindings: string[] | undefined;
  annotations: Record<string, string>;
  /** The metadata's `limits`, checked (`{}` when none). */
  limits: StoredLimits;
}

const MODULE_TYPES: Record<string, ScriptModule['type']> = {
  'application/javascript+module': 'esm',
  'text/javascript+module': 'esm',
  'application/javascript': 'commonjs',
  'text/javascript': 'commonjs',
  'application/wasm': 'wasm',
  'text/plain': 'text',
  'application/octet-stream': 'data',
  'application/json': 'json',
  'application/source-map': 'sourcemap',
};

/** The production MIME type of a module type (for content downloads). */
export function moduleMimeType(type: ScriptModule['type']): string {
  return Object.entries(MODULE_TYPES).find(([, t]) => t === type)![0];
}

/** Reads and checks an upload body. `today` bounds the compatibility date. */
export async function parseUpload(form: FormData, today: string): Promise<ParsedUpload> {
  const metadata = form.has('metadata') ? await readMetadata(form.get('metadata')) : bracketed(form, 'metadata');
  const serviceWorker = metadata.main_module === undefined && metadata.body_part !== undefined;
  const entry = serviceWorker ? metadata.body_part : metadata.main_module;
  if (typeof entry !== 'string' || entry === '') throw invalidUpload(serviceWorker ? 'metadata.body_part must name the script part of the upload' : 'metadata.main_module must name the entry module of the upload');
  const modules: ScriptModule[] = [];
  let total = 0;
  for (const [field, part] of form.entries()) {
    if (field === 'metadata' || field.startsWith('metadata[')) continue;
    const name = (field === 'files[]' || field === 'files') && typeof part !== 'string' ? part.name : field;
    if (typeof part === 'string') throw invalidUpload(`Module "${name}" must be a file part with a content type`);
    const mime = part.type.split(';')[0]!.trim().toLowerCase();
    const type = MODULE_TYPES[mime];
    if (type === undefined) {
      const what = mime.startsWith('text/x-python') ? 'Python modules are not supported by Stratus' : `use one of ${Object.keys(MODULE_TYPES).join(', ')}`;
      throw invalidUpload(`Module "${name}" has content type "${part.type || '(none)'}": ${what}`);
    }
    if (name === '' || name.length > 1024 || /[\u0000-\u001f\u007f]/.test(name)) throw invalidUpload(`Module name ${JSON.stringify(name)} must be 1 to 1024 characters without control characters`);
    if (modules.some((m) => m.name === name)) throw invalidUpload(`Module "${name}" appears more than once`);
    const content = new Uint8Array(await part.arrayBuffer());
    total += content.byteLength;
    if (total > MAX_SCRIPT_BYTES) throw new AppError(WORKERS_CODES.tooLarge, `Your Worker exceeded the size limit of ${MAX_SCRIPT_BYTES / 1024 / 1024} MiB`, 400);
    modules.push({ name, type, content });
  }
  const main = modules.find((m) => m.name === entry);
  const field = serviceWorker ? 'metadata.body_part' : 'metadata.main_module';
  if (!main) throw invalidUpload(`No such module "${entry}": ${field} must name one of the uploaded parts`);
  if (serviceWorker && main.type !== 'commonjs') throw invalidUpload(`The Service Worker script "${main.name}" must have content type application/javascript`);
  if (main.type !== 'esm' && main.type !== 'commonjs') throw invalidUpload(`The main module "${main.name}" must be JavaScript (application/javascript+module)`);
  return {
    mainModule: main.name,
    modules,
    compatibilityDate: compatibilityDate(metadata.compatibility_date, today),
    compatibilityFlags: stringList(metadata.compatibility_flags, 'compatibility_flags') ?? [],
    bindings: metadata.bindings ?? [],
    keepBindings: stringList(metadata.keep_bindings, 'keep_bindings'),
    annotations: annotations(metadata.annotations),
    limits: parseLimits(metadata.limits),
  };
}

/** The JSON object of a form part (`metadata`, `settings`). */
export async function readMetadata(part: FormDataEntryValue | null, what = 'metadata'): Promise<Record<string, unknown>> {
  if (part === null) throw invalidUpload(`The body needs a "${what}" part (JSON)`);
  const text = typeof part === 'string' ? part : await part.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidUpload(`The "${what}" part is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidUpload(`The "${what}" part must be a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * An object rebuilt from bracketed form fields (`p[a]`, `p[list][]`, `p[list][][k]`): an array of objects
 * starts a new element when a key repeats. Values stay strings.
 */
export function bracketed(form: FormData, prefix: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let found = false;
  for (const [field, value] of form.entries()) {
    if (!field.startsWith(`${prefix}[`) || typeof value !== 'string') continue;
    found = true;
    const keys = [...field.slice(prefix.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!);
    let node: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const last = i === keys.length - 1;
      if (Array.isArray(node)) {
        if (last) { node.push(value); break; }
        const nextKey = keys[i + 1]!;
        let element = node[node.length - 1] as Record<string, unknown> | undefined;
        if (element === undefined || typeof element !== 'object' || (i + 2 === keys.length && nextKey in element)) { element = {}; node.push(element); }
        node = element;
        continue;
      }
      if (last) { node[key] = value; break; }
      node[key] ??= keys[i + 1] === '' ? [] : {};
      node = node[key] as Record<string, unknown> | unknown[];
    }
  }
  if (!found) throw invalidUpload(`The body needs a "${prefix}" part (JSON)`);
  return root;
}

/** A compatibility date of metadata or settings (the default when absent). */
export function compatibilityDate(value: unknown, today: string): string {
  if (value === undefined || value === null || value === '') return DEFAULT_COMPATIBILITY_DATE;
  if (typeof value !== 'string' || !isCalendarDate(value)) throw invalidUpload(`Invalid compatibility_date ${JSON.stringify(value)}: use YYYY-MM-DD`);
  if (value > today) throw invalidUpload(`Can't set compatibility date in the future: ${value} (today is ${today})`);
  return value;
}

/** A list of strings of metadata or settings, without repeats. */
export function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw invalidUpload(`metadata.${field} must be an array of strings`);
  return [...new Set(value as string[])];
}

function annotations(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidUpload('metadata.annotations must be an object');
  const out: Record<string, string> = {};
  for (const key of ['workers/message', 'workers/tag'] as const) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || v.length > (key === 'workers/tag' ? 25 : 100)) throw invalidUpload(`metadata.annotations["${key}"] must be a string of at most ${key === 'workers/tag' ? 25 : 100} characters`);
    out[key] = v;
  }
  return out;
}
