/**
 * Reading the fields of a `data` object: integers in ranges, decimals, strings, with one clear error per
 * bad field (every field is checked, not just the first bad one) and unknown fields reported at the end.
 */
import type { RecordType } from '../record.js';
import type { ErrorCollector } from '../../shared/errors.js';
import { DATA_FIELD_INVALID, DATA_FIELD_UNKNOWN, DATA_REQUIRED, PRIORITY_INVALID, PRIORITY_REQUIRED, report } from './errors.js';

/** True for a plain JSON object. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A number given as a JSON number or a decimal string; undefined when neither. */
function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && /^\s*-?[0-9]+(\.[0-9]+)?\s*$/.test(v)) return Number(v);
  return undefined;
}

/** Typed access to one record's `data`, recording a problem per bad field. */
export class DataReader {
  readonly data: Record<string, unknown>;
  private readonly seen = new Set<string>();
  ok = true;

  constructor(readonly type: RecordType, data: Record<string, unknown>, private readonly errors: ErrorCollector) {
    this.data = data;
  }

  /** Records a problem with a field. */
  fail(field: string, rule: string): undefined {
    report(this.errors, DATA_FIELD_INVALID, { type: this.type, field, rule });
    this.ok = false;
    return undefined;
  }

  /** The raw value, marking the field as known; null counts as absent. */
  raw(field: string): unknown {
    this.seen.add(field);
    const v = this.data[field];
    return v === null ? undefined : v;
  }

  /** An integer in [min, max]; `fallback` when absent (required when no fallback). */
  int(field: string, min: number, max: number, fallback?: number): number | undefined {
    const v = this.raw(field);
    const rule = `must be an integer from ${min} to ${max}`;
    if (v === undefined) return fallback !== undefined ? fallback : this.fail(field, `is required and ${rule}`);
    const n = toNumber(v);
    if (n === undefined || !Number.isInteger(n) || n < min || n > max) return this.fail(field, rule);
    return n;
  }

  /** A number in [min, max] with at most `decimals` decimals; `fallback` when absent. */
  decimal(field: string, min: number, max: number, decimals: number, fallback?: number): number | undefined {
    const v = this.raw(field);
    const rule = `must be a number from ${min} to ${max} with at most ${decimals} decimals`;
    if (v === undefined) return fallback !== undefined ? fallback : this.fail(field, `is required and ${rule}`);
    const n = toNumber(v);
    if (n === undefined || n < min || n > max) return this.fail(field, rule);
    const text = String(n);
    if (/e/i.test(text) || (text.split('.')[1] ?? '').length > decimals) return this.fail(field, rule);
    return n;
  }

  /** A string (required unless `optional`), checked by `check` which returns the normalized value or a rule text. */
  str(field: string, check: (s: string) => { value: string } | { rule: string }, optional = false): string | undefined {
    const v = this.raw(field);
    if (v === undefined) return optional ? undefined : this.fail(field, 'is required');
    if (typeof v !== 'string') return this.fail(field, 'must be a string');
    const r = check(v);
    if ('rule' in r) return this.fail(field, r.rule);
    return r.value;
  }

  /** One of the given strings (case-insensitive, normalized to the listed spelling). */
  oneOf(field: string, values: readonly string[]): string | undefined {
    return this.str(field, (s) => {
      const hit = values.find((x) => x.toLowerCase() === s.trim().toLowerCase());
      return hit ? { value: hit } : { rule: `must be one of ${values.join(', ')}` };
    });
  }

  /** Reports every non-null field that was never read; false when any. */
  finish(extraAllowed: readonly string[] = []): boolean {
    for (const [k, v] of Object.entries(this.data)) {
      if (v === null || this.seen.has(k) || extraAllowed.includes(k)) continue;
      report(this.errors, DATA_FIELD_UNKNOWN, { type: this.type, field: k });
      this.ok = false;
    }
    return this.ok;
  }
}

/** The `data` object of a data type, or undefined after recording DATA_REQUIRED. */
export function dataReader(type: RecordType, data: unknown, errors: ErrorCollector): DataReader | undefined {
  if (!isPlainObject(data)) {
    report(errors, DATA_REQUIRED, { type });
    return undefined;
  }
  return new DataReader(type, data, errors);
}

/** The top-level priority (MX, URI): required integer 0..65535. */
export function requiredPriority(type: RecordType, v: unknown, errors: ErrorCollector): number | undefined {
  if (v === undefined || v === null) return void report(errors, PRIORITY_REQUIRED, { type });
  const n = toNumber(v);
  if (n === undefined || !Number.isInteger(n) || n < 0 || n > 65535) return void report(errors, PRIORITY_INVALID, { type });
  return n;
}

/** A hex string, white space removed, uppercase; a rule text when not even-length hex. */
export function hexField(s: string, lengths?: readonly number[]): { value: string } | { rule: string } {
  const v = s.replace(/\s+/g, '');
  if (v === '' || !/^[0-9a-fA-F]+$/.test(v) || v.length % 2 !== 0) return { rule: 'must be a non-empty even-length hexadecimal string' };
  if (lengths && !lengths.includes(v.length)) return { rule: `must be ${lengths.join(' or ')} hexadecimal digits long for this digest type` };
  return { value: v.toUpperCase() };
}

/** Base64 with white space removed; a rule text when not valid padded base64. */
export function base64Field(s: string): { value: string } | { rule: string } {
  const v = s.replace(/\s+/g, '');
  if (v === '' || v.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(v)) return { rule: 'must be non-empty base64' };
  return { value: v };
}
