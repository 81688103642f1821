/**
 * Stored record (the normalized form of `../record.ts`) -> RDATA pieces for the wire encoder. Names inside
 * NS, CNAME, PTR and MX may be compressed (RFC 3597 §4); names inside SRV, NAPTR, SVCB/HTTPS are written
 * uncompressed (RFC 2782, RFC 3403, RFC 9460 §2.2). Throws RangeError on content the encoder cannot represent.
 */
import type { RecordType } from '../record.js';
import type { RdataPart } from '../wire/message.js';
import { encodeName } from '../wire/writer.js';
import { svcParamsWire } from '../record-types/svc-params.js';
import {
  base64Bytes, characterString, hexBytes, ipv4Bytes, ipv6Bytes, parseCharacterStrings,
} from '../wire/text.js';
import { locRdata } from './loc.js';
import { presignedRdata } from './presigned.js';

/** The fields of a stored record that determine its RDATA. */
export interface RdataSource {
  type: RecordType;
  content: string;
  data: Record<string, unknown> | null;
  priority: number | null;
}

function u16(n: unknown, what: string): Uint8Array {
  const v = Number(n);
  if (!Number.isInteger(v) || v < 0 || v > 65535) throw new RangeError(`${what} must be 0..65535`);
  return Uint8Array.from([v >> 8, v & 0xff]);
}

function u8(n: unknown, what: string): Uint8Array {
  const v = Number(n);
  if (!Number.isInteger(v) || v < 0 || v > 255) throw new RangeError(`${what} must be 0..255`);
  return Uint8Array.from([v]);
}

/** A host name as stored (no trailing dot; `.` or '' is the root). */
export function hostName(value: unknown): string {
  const s = String(value ?? '').trim().toLowerCase().replace(/\.$/, '');
  return s;
}

function str(data: Record<string, unknown>, key: string): string {
  const v = data[key];
  return v === undefined || v === null ? '' : String(v);
}

/** RDATA of a stored record. */
export function recordRdata(rec: RdataSource): RdataPart[] {
  const d = rec.data ?? {};
  switch (rec.type) {
    case 'A': return [ipv4Bytes(rec.content)];
    case 'AAAA': return [ipv6Bytes(rec.content)];
    case 'CNAME': case 'NS': case 'PTR': return [{ name: hostName(rec.content) }];
    case 'MX': return [u16(rec.priority ?? 0, 'MX priority'), { name: hostName(rec.content) }];
    case 'TXT': return parseCharacterStrings(rec.content).map(characterString);
    case 'OPENPGPKEY': return [base64Bytes(rec.content)];
    case 'CAA': {
      const tag = Buffer.from(str(d, 'tag'), 'utf8');
      return [u8(d.flags ?? 0, 'CAA flags'), characterString(tag), Buffer.from(str(d, 'value'), 'utf8')];
    }
    case 'CERT':
      return [u16(d.type, 'CERT type'), u16(d.key_tag, 'CERT key_tag'), u8(d.algorithm, 'CERT algorithm'), base64Bytes(str(d, 'certificate'))];
    case 'DNSKEY':
      return [u16(d.flags, 'DNSKEY flags'), u8(d.protocol, 'DNSKEY protocol'), u8(d.algorithm, 'DNSKEY algorithm'), base64Bytes(str(d, 'public_key'))];
    case 'DS':
      return [u16(d.key_tag, 'DS key_tag'), u8(d.algorithm, 'DS algorithm'), u8(d.digest_type, 'DS digest_type'), hexBytes(str(d, 'digest'))];
    case 'HTTPS': case 'SVCB':
      return [u16(d.priority, 'SVCB priority'), encodeName(hostName(d.target)), svcParamsWire(str(d, 'value'))];
    case 'LOC': return [locRdata(d)];
    case 'NAPTR':
      return [
        u16(d.order, 'NAPTR order'), u16(d.preference, 'NAPTR preference'), characterString(str(d, 'flags')),
        characterString(str(d, 'service')), characterString(str(d, 'regex')), encodeName(hostName(d.replacement)),
      ];
    case 'SMIMEA': case 'TLSA':
      return [u8(d.usage, 'usage'), u8(d.selector, 'selector'), u8(d.matching_type, 'matching_type'), hexBytes(str(d, 'certificate'))];
    case 'SRV':
      return [u16(rec.priority ?? d.priority, 'SRV priority'), u16(d.weight, 'SRV weight'), u16(d.port, 'SRV port'), encodeName(hostName(d.target))];
    case 'SSHFP':
      return [u8(d.algorithm, 'SSHFP algorithm'), u8(d.type, 'SSHFP type'), hexBytes(str(d, 'fingerprint'))];
    case 'URI':
      return [u16(rec.priority ?? d.priority, 'URI priority'), u16(d.weight, 'URI weight'), Buffer.from(str(d, 'target'), 'utf8')];
    case 'RRSIG': case 'NSEC': case 'NSEC3': case 'NSEC3PARAM': case 'SOA':
      return presignedRdata(rec.type, d);
    default: {
      const never: never = rec.type;
      throw new RangeError(`no RDATA encoder for ${String(never)}`);
    }
  }
}
