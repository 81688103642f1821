/**
 * Value checkers of zone settings (the catalogue in `zone-setting-catalogue.ts` gives each setting one): each
 * takes the setting's current value and a PATCH value and returns the new value or what was expected. Object
 * values may be sent partially (a PATCH of `{"js": "on"}` keeps the other minify fields), as production merges
 * them; unknown fields and wrong types are refused.
 */
import { isObject, type Json } from './shape.js';

/** The outcome of checking one value. */
export type CheckResult = { value: unknown } | { error: string };

/** Checks a PATCH value against the current one. */
export type ValueCheck = (current: unknown, value: unknown) => CheckResult;

/** One of these strings. */
export function oneOf(...values: readonly string[]): ValueCheck {
  const expected = values.map((v) => JSON.stringify(v)).join(', ');
  return (_cur, v) => (typeof v === 'string' && values.includes(v) ? { value: v } : { error: `expected one of ${expected}` });
}

/** "on" or "off". */
export const onOff: ValueCheck = oneOf('on', 'off');

/** One of these numbers. */
export function numberIn(...values: readonly number[]): ValueCheck {
  return (_cur, v) => (typeof v === 'number' && values.includes(v) ? { value: v } : { error: `expected one of ${values.join(', ')}` });
}

/** An integer from min to max. */
export function intRange(min: number, max: number): ValueCheck {
  return (_cur, v) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? { value: v } : { error: `expected an integer from ${min} to ${max}` });
}

/** A string of at most `max` characters. */
export function text(max: number): ValueCheck {
  return (_cur, v) => (typeof v === 'string' && v.length <= max ? { value: v } : { error: `expected a string of at most ${max} characters` });
}

/** A list of distinct strings each matching `item` (at most `max`). */
export function stringList(item: RegExp, max: number, what: string): ValueCheck {
  return (_cur, v) => {
    if (!Array.isArray(v) || v.length > max || !v.every((x) => typeof x === 'string' && item.test(x))) return { error: `expected an array of at most ${max} ${what}` };
    if (new Set(v).size !== v.length) return { error: `expected distinct ${what}; one is listed twice` };
    return { value: [...(v as string[])] };
  };
}

/** A boolean. */
export const bool: ValueCheck = (_cur, v) => (typeof v === 'boolean' ? { value: v } : { error: 'expected true or false' });

/**
 * An object whose fields are checked one by one and merged onto the current value (a partial object is fine).
 * With `complete`, every field must be sent (production requires all of automatic_platform_optimization's).
 */
export function objectOf(fields: Readonly<Record<string, ValueCheck>>, opts: { complete?: boolean } = {}): ValueCheck {
  const names = Object.keys(fields).join(', ');
  return (current, v) => {
    if (!isObject(v)) return { error: `expected an object with ${names}` };
    if (opts.complete) {
      const missing = Object.keys(fields).filter((k) => !(k in v));
      if (missing.length > 0) return { error: `missing ${missing.join(', ')}; send every field (${names})` };
    }
    const out: Json = { ...(isObject(current) ? current : {}) };
    for (const [k, x] of Object.entries(v)) {
      const check = fields[k];
      if (!check) return { error: `unknown field ${JSON.stringify(k)}; expected ${names}` };
      const r = check(out[k], x);
      if ('error' in r) return { error: `${k}: ${r.error}` };
      out[k] = r.value;
    }
    return { value: out };
  };
}

/** `null` or what `inner` accepts. */
export function nullable(inner: ValueCheck): ValueCheck {
  return (cur, v) => (v === null ? { value: null } : inner(cur, v));
}
