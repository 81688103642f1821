/**
 * DNS wire constants: RR type codes (RFC 1035, 3596, 1876, 2782, 3403, 4398, 4034, 4255, 6698, 8162, 7929,
 * 9460, 7553, 8659), classes, opcodes and response codes (RFC 1035 §4.1.1, RFC 6891 §6.1.3).
 */

/** RR type codes by mnemonic. */
export const TYPE = {
  A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, HINFO: 13, MX: 15, TXT: 16, AAAA: 28, LOC: 29, SRV: 33, NAPTR: 35,
  CERT: 37, OPT: 41, DS: 43, SSHFP: 44, RRSIG: 46, NSEC: 47, DNSKEY: 48, NSEC3: 50, NSEC3PARAM: 51, TLSA: 52, SMIMEA: 53, OPENPGPKEY: 61,
  SVCB: 64, HTTPS: 65, IXFR: 251, AXFR: 252, ANY: 255, URI: 256, CAA: 257,
} as const;

/** Mnemonic of a type code (`TYPE123` for unknown codes, RFC 3597). */
export function typeName(code: number): string {
  for (const [name, value] of Object.entries(TYPE)) if (value === code) return name;
  return `TYPE${code}`;
}

/** Classes. */
export const CLASS = { IN: 1, CH: 3, NONE: 254, ANY: 255 } as const;

/** Opcodes. */
export const OPCODE = { QUERY: 0, IQUERY: 1, STATUS: 2, NOTIFY: 4, UPDATE: 5 } as const;

/** Response codes (BADVERS is an extended code carried partly in OPT). */
export const RCODE = {
  NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, NOTAUTH: 9, BADVERS: 16,
} as const;

/** Largest UDP payload this server advertises and uses (the DNS flag day 2020 value). */
export const EDNS_UDP_SIZE = 1232;
