/**
 * A small declarative validator for settings bodies: each field is described by a {@link FieldSpec}; a
 * partial body (nested objects may be partial too) is checked against the spec, every problem is collected,
 * and the valid values are merged onto the current settings. Used by the zone and account DNS settings.
 */
import { AppError } from '../../shared/errors.js';

/** How one field is validated. */
export type FieldSpec =
  | { kind: 'boolean' }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'host'; nullable: boolean }
  | { kind: 'mailbox'; nullable: boolean }
  | { kind: 'id'; nullable: boolean }
  | { kind: 'object'; fields: Readonly<Record<string, FieldSpec>> };

/** A JSON object. */
export type Json = Record<string, unknown>;

const HOST = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.?$/i;
const MAILBOX = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/** True for a plain JSON object. */
export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(spec: FieldSpec): string {
  switch (spec.kind) {
    case 'boolean': return 'true or false';
    case 'int': return `an integer from ${spec.min} to ${spec.max}`;
    case 'enum': return `one of ${spec.values.join(', ')}`;
    case 'host': return `a host name${spec.nullable ? ' or null' : ''}`;
    case 'mailbox': return `a mailbox in domain form (admin.example.com) or e-mail form${spec.nullable ? ', or null' : ''}`;
    case 'id': return `a 32-character hex identifier${spec.nullable ? ' or null' : ''}`;
    case 'object': return `an object with ${Object.keys(spec.fields).join(', ')}`;
  }
}

function valid(spec: FieldSpec, v: unknown): boolean {
  switch (spec.kind) {
    case 'boolean': return typeof v === 'boolean';
    case 'int': return typeof v === 'number' && Number.isInteger(v) && v >= spec.min && v <= spec.max;
    case 'enum': return typeof v === 'string' && spec.values.includes(v);
    case 'host': return (spec.nullable && v === null) || (typeof v === 'string' && HOST.test(v));
    case 'mailbox': return (spec.nullable && v === null) || (typeof v === 'string' && (HOST.test(v) || MAILBOX.test(v)));
    case 'id': return (spec.nullable && v === null) || (typeof v === 'string' && /^[0-9a-f]{32}$/.test(v));
    case 'object': return isObject(v);
  }
}

/**
 * Checks `patch` against `fields` and merges it onto `current` (a new object; `current` is not changed).
 * Problems are appended to `errors` as `code` errors naming the field path (`soa.ttl`).
 */
export function mergeChecked(current: Json, patch: Json, fields: Readonly<Record<string, FieldSpec>>, code: number, errors: AppError[], prefix = ''): Json {
  const out: Json = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    const path = `${prefix}${key}`;
    const spec = fields[key];
    if (spec === undefined) {
      errors.push(new AppError(code, `Unknown DNS setting ${JSON.stringify(path)}: known settings here are ${Object.keys(fields).join(', ')}`));
      continue;
    }
    if (!valid(spec, value)) {
      errors.push(new AppError(code, `Invalid value for DNS setting ${path}: expected ${describe(spec)}, got ${JSON.stringify(value)}`));
      continue;
    }
    if (spec.kind === 'object') {
      const base = isObject(current[key]) ? (current[key] as Json) : {};
      out[key] = mergeChecked(base, value as Json, spec.fields, code, errors, `${path}.`);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Deep merge of stored settings over defaults (stored values are trusted: they were checked when written). */
export function withDefaults<T extends Json>(defaults: T, stored: unknown): T {
  if (!isObject(stored)) return structuredClone(defaults);
  const out: Json = structuredClone(defaults);
  for (const [key, value] of Object.entries(stored)) {
    if (!(key in defaults)) continue;
    const base = defaults[key];
    out[key] = isObject(base) && isObject(value) ? withDefaults(base, value) : value;
  }
  return out as T;
}

/** Parses a stored JSON column; anything unreadable is `{}`. */
export function parseJsonObject(text: string | null | undefined): Json {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}
