/**
 * Zone names (`POST /zones` `name`): trimmed, lowercased, a trailing dot removed, internationalized names
 * converted to Punycode; at least two labels of letters, digits and hyphens (no leading or trailing hyphen),
 * each at most 63 characters, at most 253 characters in all.
 */
import { domainToASCII } from 'node:url';

/** The normalized zone name, or undefined when the value is not a valid zone name. */
export function normalizeZoneName(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let name = raw.trim().replace(/\.$/, '');
  if (name === '' || /\s/.test(name)) return undefined;
  if (/[^\x20-\x7e]/.test(name)) {
    name = domainToASCII(name);
    if (name === '') return undefined;
  }
  name = name.toLowerCase();
  if (name.length > 253) return undefined;
  const labels = name.split('.');
  if (labels.length < 2) return undefined;
  return labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l)) ? name : undefined;
}
