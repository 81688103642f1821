/**
 * The edge-script configuration file, in the production tooling's shape (wrangler.toml, wrangler.json,
 * wrangler.jsonc): `name`, `main`, `compatibility_date`, `compatibility_flags`, `vars`, and bucket bindings
 * under production's `r2_buckets` or `store_buckets` (`[{ binding, bucket_name }]`), and `account_id` (whose
 * buckets `stratus dev` binds, as wrangler reads the key). Keys only deploys use (`routes`, `workers_dev`, ...)
 * are accepted; `[limits]` (`cpu_ms`, `subrequests`) is checked as
 * an upload's `limits` is and applied as on the edge; a key Stratus does not know is a warning naming
 * it. A value of a known key that is wrong is an error naming the file and the key, e.g.
 * `wrangler.toml: r2_buckets[0].binding ...`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { isCalendarDate } from '../config/config.js';
import type { ScriptLimits } from '../edge/types.js';
import { parseLimits, runtimeLimits } from '../scripts/limits.js';

/** One `store_buckets` entry: the script sees `env[binding]`, backed by the bucket `bucketName`. */
export interface BucketBinding {
  binding: string;
  bucketName: string;
}

/** A validated script configuration. `main` is absolute (resolved against the config file's folder). */
export interface ScriptConfig {
  name?: string | undefined;
  main: string | undefined;
  compatibilityDate: string | undefined;
  compatibilityFlags: string[];
  buckets: BucketBinding[];
  /** `[vars]`: strings become text bindings, other values JSON bindings (as production). */
  vars?: Record<string, unknown>;
  /** `[limits]`: the script's own limits, which the node's flags cap. */
  limits?: ScriptLimits;
  /** `account_id`: the account whose buckets the bindings name (`stratus dev`: the data folder's admin's when absent). */
  accountId?: string;
  /** Keys Stratus does not know, one message each (printed as warnings). */
  warnings?: string[];
}

/** A problem in the script configuration; the message names the file and the key. */
export class ScriptConfigError extends Error {
  override name = 'ScriptConfigError';
}

const KNOWN_KEYS = new Set(['name', 'main', 'account_id', 'compatibility_date', 'compatibility_flags', 'store_buckets', 'r2_buckets', 'vars', 'limits']);
/** Keys of the production tooling that matter only to deploys or to its bundler: accepted, not used by `stratus dev`. */
const DEPLOY_KEYS = new Set(['$schema', 'workers_dev', 'preview_urls', 'route', 'routes', 'env', 'triggers', 'usage_model',
  'placement', 'observability', 'logpush', 'tail_consumers', 'upload_source_maps', 'minify', 'keep_vars', 'send_metrics',
  'build', 'rules', 'no_bundle', 'find_additional_modules', 'base_dir', 'preserve_file_names', 'keep_names', 'dev', 'site', 'assets',
  'node_compat', 'define', 'alias', 'jsx_factory', 'jsx_fragment', 'tsconfig', 'legacy_env', 'first_party_worker', 'logfwdr',
  'migrations', 'compliance_region', 'unsafe', 'wasm_modules', 'text_blobs', 'data_blobs', 'containers', 'secrets', 'python_modules']);
const BUCKET_KEYS = new Set(['binding', 'bucket_name', 'preview_bucket_name', 'jurisdiction', 'experimental_remote', 'remote']);
const JS_IDENTIFIER = /^[$_\p{ID_Start}][$\u200c\u200d\p{ID_Continue}]*$/u;
const RESERVED = new Set(('break case catch class const continue debugger default delete do else enum export extends false finally for ' +
  'function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
  'implements interface package private protected public await').split(' '));
/** Bucket names as the production service takes them: 3..63 of a-z, 0-9 and '-', starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/** True when `name` can be used as a script variable (`env.NAME`). */
export function isJsIdentifier(name: string): boolean {
  return JS_IDENTIFIER.test(name) && !RESERVED.has(name);
}

/** True when `name` is a valid bucket name. */
export function isBucketName(name: string): boolean {
  return BUCKET_NAME.test(name);
}

/** Reads and validates a configuration file (`.toml` or `.json`; other names are tried as TOML). */
export function loadScriptConfig(file: string): ScriptConfig {
  const label = path.basename(file);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ScriptConfigError(`${label}: cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  const json = file.endsWith('.json') || file.endsWith('.jsonc');
  try {
    raw = json ? JSON.parse(stripJsonComments(text)) : parseToml(text);
  } catch (err) {
    throw new ScriptConfigError(`${label}: not valid ${json ? 'JSON' : 'TOML'}: ${(err as Error).message}`);
  }
  return validateScriptConfig(raw, label, path.dirname(path.resolve(file)));
}

/** Validates an already parsed configuration object; `label` prefixes every error, `baseDir` resolves `main`. */
export function validateScriptConfig(raw: unknown, label: string, baseDir: string): ScriptConfig {
  const fail = (key: string, problem: string): never => {
    throw new ScriptConfigError(`${label}: ${key} ${problem}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('(top level)', 'must be a table/object');
  const obj = raw as Record<string, unknown>;
  const warnings: string[] = [];
  for (const key of Object.keys(obj)) {
    if (!KNOWN_KEYS.has(key) && !DEPLOY_KEYS.has(key)) warnings.push(`${label}: ${key} is not a key Stratus knows; ignored`);
  }
  let name: string | undefined;
  if (obj.name !== undefined) {
    if (typeof obj.name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,62}$/i.test(obj.name)) fail('name', `must be a script name (letters, digits, - and _), got ${JSON.stringify(obj.name)}`);
    name = obj.name as string;
  }
  let accountId: string | undefined;
  if (obj.account_id !== undefined) {
    if (typeof obj.account_id !== 'string' || !/^[0-9a-f]{32}$/.test(obj.account_id)) fail('account_id', `must be an account id (32 hex digits, lowercase), got ${JSON.stringify(obj.account_id)}`);
    accountId = obj.account_id as string;
  }
  let vars: Record<string, unknown> | undefined;
  if (obj.vars !== undefined) {
    if (typeof obj.vars !== 'object' || obj.vars === null || Array.isArray(obj.vars)) fail('vars', 'must be a table of names and values');
    for (const key of Object.keys(obj.vars as object)) if (!isJsIdentifier(key)) fail(`vars.${key}`, 'must be a valid JavaScript identifier');
    vars = obj.vars as Record<string, unknown>;
  }
  let main: string | undefined;
  if (obj.main !== undefined) {
    if (typeof obj.main !== 'string' || obj.main === '') fail('main', 'must be a non-empty string (path of the script)');
    main = path.resolve(baseDir, obj.main as string);
  }
  let compatibilityDate: string | undefined;
  if (obj.compatibility_date !== undefined) {
    if (typeof obj.compatibility_date !== 'string' || !isCalendarDate(obj.compatibility_date)) {
      fail('compatibility_date', `must be a date "YYYY-MM-DD", got ${JSON.stringify(obj.compatibility_date)}`);
    }
    compatibilityDate = obj.compatibility_date as string;
  }
  const compatibilityFlags: string[] = [];
  if (obj.compatibility_flags !== undefined) {
    if (!Array.isArray(obj.compatibility_flags)) fail('compatibility_flags', 'must be an array of strings');
    (obj.compatibility_flags as unknown[]).forEach((flag, i) => {
      if (typeof flag !== 'string' || !/^[a-z0-9_]+$/.test(flag)) {
        fail(`compatibility_flags[${i}]`, `must be a flag name of a-z, 0-9 and _, got ${JSON.stringify(flag)}`);
      }
      compatibilityFlags.push(flag as string);
    });
  }
  const buckets: BucketBinding[] = [];
  const seen = new Set<string>(Object.keys(vars ?? {}));
  for (const list of ['r2_buckets', 'store_buckets'] as const) {
    if (obj[list] === undefined) continue;
    if (!Array.isArray(obj[list])) fail(list, 'must be an array of { binding, bucket_name } tables');
    (obj[list] as unknown[]).forEach((entry, i) => {
      const at = `${list}[${i}]`;
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) fail(at, 'must be a table with binding and bucket_name');
      const e = entry as Record<string, unknown>;
      for (const key of Object.keys(e)) {
        if (!BUCKET_KEYS.has(key)) warnings.push(`${label}: ${at}.${key} is not a key Stratus knows; ignored`);
      }
      if (typeof e.binding !== 'string' || !isJsIdentifier(e.binding)) {
        fail(`${at}.binding`, `must be a valid JavaScript identifier, got ${JSON.stringify(e.binding)}`);
      }
      if (seen.has(e.binding as string)) fail(`${at}.binding`, `"${e.binding as string}" is bound twice`);
      seen.add(e.binding as string);
      if (typeof e.bucket_name !== 'string' || !isBucketName(e.bucket_name)) {
        fail(`${at}.bucket_name`, `must be a bucket name (3-63 characters of a-z, 0-9 and "-", starting and ending with a letter or digit), got ${JSON.stringify(e.bucket_name)}`);
      }
      buckets.push({ binding: e.binding as string, bucketName: e.bucket_name as string });
    });
  }
  let limits: ScriptLimits | undefined;
  if (obj.limits !== undefined) {
    try {
      limits = runtimeLimits(parseLimits(obj.limits, 'limits'));
    } catch (err) {
      throw new ScriptConfigError(`${label}: ${(err as Error).message}`);
    }
  }
  return {
    name, main, compatibilityDate, compatibilityFlags, buckets, ...(accountId ? { accountId } : {}), ...(vars ? { vars } : {}), ...(limits ? { limits } : {}), warnings,
  };
}

/** JSONC to JSON: drops // and /* *\/ comments and trailing commas outside strings. */
export function stripJsonComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2);
      if (i < 0) break;
      i++;
    } else if (c === ',' && /^\s*[}\]]/.test(text.slice(i + 1, i + 200))) {
      // a trailing comma: dropped
    } else {
      out += c;
    }
  }
  return out;
}
