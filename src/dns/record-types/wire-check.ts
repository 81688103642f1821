/**
 * The last check of every record value the API accepts: it must encode on the wire exactly as the DNS server
 * will serve it (`../rdata`), within DNS's limits: character-strings of at most 255 bytes, labels of at most
 * 63 octets and names of at most 255 octets (RFC 1035 §2.3.4, §3.3), and RDATA small enough that the record
 * fits one DNS message over TCP with its question and owner name (RFC 1035 §4.2.2: 65,535 bytes). The
 * per-type specs report the usual problems with their own messages; this catches whatever a spec lets
 * through, so nothing is stored that the server would then skip.
 */
import type { RecordType } from '../record.js';
import { recordRdata } from '../rdata/index.js';
import { encodeName } from '../wire/writer.js';
import type { StoredValue } from './types.js';

/** Largest RDATA of one record: a TCP message (65,535) minus header (12), question (255 + 4) and RR header (255 + 10). */
export const MAX_RDATA_BYTES = 65_535 - 12 - (255 + 4) - (255 + 10);

/** Why the value cannot be served, or undefined when it encodes within the limits. */
export function wireProblem(type: RecordType, value: StoredValue): string | undefined {
  let size = 0;
  try {
    for (const part of recordRdata({ type, ...value })) size += part instanceof Uint8Array ? part.length : encodeName(part.name).length;
  } catch (err) {
    if (err instanceof RangeError) return `it cannot be encoded in a DNS answer (${err.message})`;
    throw err;
  }
  if (size > MAX_RDATA_BYTES) return `its DNS wire form is ${size} bytes; at most ${MAX_RDATA_BYTES} fit in a DNS message`;
  return undefined;
}
