/**
 * The edge-script configuration file, in the production tooling's shape (TOML or JSON):
 * `main`, `compatibility_date`, `compatibility_flags`, `store_buckets = [{ binding, bucket_name }]`.
 * Parsing is strict: every problem names the file and the key, e.g. `wrangler.toml: store_buckets[0].binding ...`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { isCalendarDate } from '../config/config.js';

/** One `store_buckets` entry: the script sees `env[binding]`, backed by the bucket `bucketName`. */
export interface BucketBinding {
  binding: string;
  bucketName: string;
}

/** A validated script configuration. `main` is absolute (resolved against the config file's folder). */
export interface ScriptConfig {
  main: string | undefined;
  compatibilityDate: string | undefined;
  compatibilityFlags: string[];
  buckets: BucketBinding[];
}

/** A problem in the script configuration; the message names the file and the key. */
export class ScriptConfigError extends Error {
  override name = 'ScriptConfigError';
}

const KNOWN_KEYS = new Set(['name', 'main', 'compatibility_date', 'compatibility_flags', 'store_buckets']);
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
  try {
    raw = file.endsWith('.json') ? JSON.parse(text) : parseToml(text);
  } catch (err) {
    throw new ScriptConfigError(`${label}: not valid ${file.endsWith('.json') ? 'JSON' : 'TOML'}: ${(err as Error).message}`);
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
  for (const key of Object.keys(obj)) {
    if (!KNOWN_KEYS.has(key)) fail(key, `is not a known key (known: ${[...KNOWN_KEYS].join(', ')})`);
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
  if (obj.store_buckets !== undefined) {
    if (!Array.isArray(obj.store_buckets)) fail('store_buckets', 'must be an array of { binding, bucket_name } tables');
    const seen = new Set<string>();
    (obj.store_buckets as unknown[]).forEach((entry, i) => {
      const at = `store_buckets[${i}]`;
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) fail(at, 'must be a table with binding and bucket_name');
      const e = entry as Record<string, unknown>;
      for (const key of Object.keys(e)) {
        if (key !== 'binding' && key !== 'bucket_name') fail(`${at}.${key}`, 'is not a known key (known: binding, bucket_name)');
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
  return { main, compatibilityDate, compatibilityFlags, buckets };
}
