/**
 * RR type mnemonics and codes for the type lists of NSEC/NSEC3 and RRSIG's type covered: the wire constants'
 * names plus the DNSSEC-era ones, and `TYPE<n>` for any code (RFC 3597 §5).
 */
import { TYPE } from '../wire/constants.js';

const EXTRA: Record<string, number> = { CDS: 59, CDNSKEY: 60, ZONEMD: 63, NXNAME: 128 };
const BY_NAME = new Map<string, number>([...Object.entries(TYPE), ...Object.entries(EXTRA)].filter(([n]) => !['OPT', 'IXFR', 'AXFR', 'ANY'].includes(n)));
const BY_CODE = new Map<number, string>([...BY_NAME].map(([n, c]) => [c, n]));

/** The code of a type mnemonic (case-insensitive) or `TYPE<n>`; undefined when unknown. */
export function rrTypeCode(name: string): number | undefined {
  const upper = name.toUpperCase();
  const known = BY_NAME.get(upper);
  if (known !== undefined) return known;
  const m = /^TYPE(\d{1,5})$/.exec(upper);
  return m && Number(m[1]) <= 65535 ? Number(m[1]) : undefined;
}

/** The mnemonic of a type code (`TYPE<n>` when it has none here). */
export function rrTypeName(code: number): string {
  return BY_CODE.get(code) ?? `TYPE${code}`;
}
