/**
 * Record names and host names as the v4 API accepts them, normalized to the stored form (see `record.ts`):
 * full, lowercase, Punycode, no trailing dot.
 *
 * Owner names: `@` is the apex; a name with a trailing dot is absolute and must lie in the zone; a name
 * without one is full when it ends in the zone name and relative otherwise (`www` -> `www.example.com`), as
 * in a zone file. Labels of A, AAAA and CNAME names (below the zone) follow the contract's host name rule:
 * letters, digits, hyphens, starting with a letter, ending with a letter or digit, at most 63 characters;
 * `*` may be the leftmost label; underscores pass with a warning (design, "name rules"). Other types get the
 * DNS rules: labels of 1..63 octets, at most 253 characters in all.
 */
import { domainToASCII } from 'node:url';
import type { ErrorCollector } from '../shared/errors.js';
import {
  message, NAME_INVALID, NAME_LABEL_RULES, NAME_LABEL_TOO_LONG, NAME_OUTSIDE_ZONE, NAME_TOO_LONG,
  NAME_UNDERSCORE_WARNING, NAME_WILDCARD_POSITION, report,
} from './record-types/errors.js';

/** A non-fatal remark for the response envelope's `messages`. */
export interface RecordWarning {
  code: number;
  message: string;
}

/** Types whose owner names follow the host name rule. */
const HOST_RULE_TYPES: ReadonlySet<string> = new Set(['A', 'AAAA', 'CNAME']);

/** A label under the host rule, underscores counted as letters. */
const HOST_LABEL = /^[a-z_](?:[a-z0-9_-]*[a-z0-9_])?$/;
/** A label under the DNS rule as Stratus stores names (no escapes): printable, no dot or space. */
const DNS_LABEL = /^[a-z0-9_\-/]+$/;

/** Lowercase ASCII form of one label (IDN labels to Punycode); undefined when it cannot be converted. */
function asciiLabel(label: string): string | undefined {
  if (/^[\x21-\x7e]*$/.test(label)) return label.toLowerCase();
  const ascii = domainToASCII(label);
  return ascii === '' || ascii.includes('.') ? undefined : ascii.toLowerCase();
}

/** Splits a name without trailing dot into lowercase ASCII labels; undefined when a label is empty or unconvertible. */
function toLabels(name: string): string[] | undefined {
  const out: string[] = [];
  for (const raw of name.split('.')) {
    if (raw === '') return undefined;
    const l = asciiLabel(raw);
    if (l === undefined) return undefined;
    out.push(l);
  }
  return out;
}

/**
 * The full owner name for a record (see the module comment), or undefined after recording errors.
 * Warnings (underscores in host names) are appended to `warnings`.
 */
export function normalizeRecordName(
  raw: unknown, zoneName: string, type: string, errors: ErrorCollector, warnings: RecordWarning[],
): string | undefined {
  if (typeof raw !== 'string') return void report(errors, NAME_INVALID);
  let name = raw.trim();
  if (name === '' || /\s/.test(name)) return void report(errors, NAME_INVALID);
  if (name === '@' || name === '@.') return zoneName;
  const absolute = name.endsWith('.');
  if (absolute) name = name.slice(0, -1);
  const labels = toLabels(name);
  if (!labels) return void report(errors, NAME_INVALID);
  let full = labels.join('.');
  const inZone = full === zoneName || full.endsWith(`.${zoneName}`);
  if (!inZone) {
    if (absolute) return void report(errors, NAME_OUTSIDE_ZONE, { name: full, zone: zoneName });
    full = `${full}.${zoneName}`;
  }
  const own = full === zoneName ? [] : full.slice(0, -(zoneName.length + 1)).split('.');
  if (!checkOwnLabels(own, full, type, errors, warnings)) return undefined;
  if (full.length > 253) return void report(errors, NAME_TOO_LONG, { name: full });
  return full;
}

/** Applies the per-type label rules to the labels below the zone; false when an error was recorded. */
function checkOwnLabels(
  labels: string[], full: string, type: string, errors: ErrorCollector, warnings: RecordWarning[],
): boolean {
  let ok = true;
  let underscore = false;
  labels.forEach((label, i) => {
    if (label.length > 63) {
      report(errors, NAME_LABEL_TOO_LONG, { label });
      ok = false;
      return;
    }
    if (label === '*') {
      if (i !== 0) { report(errors, NAME_WILDCARD_POSITION); ok = false; }
      return;
    }
    const rule = HOST_RULE_TYPES.has(type) ? HOST_LABEL : DNS_LABEL;
    if (!rule.test(label)) {
      if (HOST_RULE_TYPES.has(type)) report(errors, NAME_LABEL_RULES, { label, type });
      else report(errors, NAME_INVALID);
      ok = false;
      return;
    }
    if (label.includes('_')) underscore = true;
  });
  if (ok && underscore && HOST_RULE_TYPES.has(type)) {
    warnings.push({ code: NAME_UNDERSCORE_WARNING.code, message: message(NAME_UNDERSCORE_WARNING, { name: full, type }) });
  }
  return ok;
}

/** Result of {@link checkHostname}: the normalized name, or why it is not a host name. */
export type HostnameCheck = { ok: true; name: string } | { ok: false; problem: string };

/** Options of {@link checkHostname}. */
export interface HostnameOptions {
  /** Accept the root `.` (SVCB/HTTPS target, null MX, SRV "no service"). */
  allowRoot?: boolean;
}

/**
 * A target host name (CNAME/MX/NS/PTR content, SRV/SVCB/HTTPS/NAPTR targets): trimmed, lowercase, Punycode,
 * trailing dot removed; labels of letters, digits, hyphens and underscores, 1..63 characters, at most 253
 * in all. The root is kept as `.` when allowed.
 */
export function checkHostname(raw: unknown, opts: HostnameOptions = {}): HostnameCheck {
  if (typeof raw !== 'string') return { ok: false, problem: 'it must be a string' };
  let name = raw.trim();
  if (name === '') return { ok: false, problem: 'it is empty' };
  if (name === '.') return opts.allowRoot ? { ok: true, name: '.' } : { ok: false, problem: '. (the root) is not allowed here' };
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (/\s/.test(name)) return { ok: false, problem: `${raw.trim()} contains white space` };
  const labels = toLabels(name);
  if (!labels) return { ok: false, problem: `${raw.trim()} has an empty or invalid label` };
  for (const l of labels) {
    if (l.length > 63) return { ok: false, problem: `label ${l} is longer than 63 characters` };
    if (!/^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/.test(l)) return { ok: false, problem: `label ${l} may contain only letters, digits, hyphens and underscores and may not start or end with a hyphen` };
  }
  const full = labels.join('.');
  if (full.length > 253) return { ok: false, problem: `${full} is longer than 253 characters` };
  return { ok: true, name: full };
}

/** A host name as it appears in a zone file: absolute with a trailing dot (the root stays `.`). */
export function toAbsolute(name: string): string {
  return name === '.' ? '.' : `${name}.`;
}

/** A domain name from a zone file, resolved against the origin (`@`, relative, absolute), no trailing dot. */
export function fromZoneFileName(text: string, origin: string): string {
  const o = origin.replace(/\.$/, '');
  if (text === '@') return o;
  if (text === '.') return '.';
  if (text.endsWith('.')) return text.slice(0, -1);
  return o === '' ? text : `${text}.${o}`;
}
