/**
 * IXFR (RFC 1995) answers from a zone tree's journal (dns/zone-journal.ts): the condensed difference from the
 * client's serial (the SOA in the query's authority section) to the zone's, as the current SOA, the client's
 * SOA, the records to delete, the current SOA, the records to add, and the current SOA. The handler sends it
 * over TCP, or over UDP when it fits in one message (else the SOA alone, which tells the client to use TCP).
 * Pre-signed zones (secondary zones' copies) are answered from their journal too: their signatures are stored
 * records, journaled like any other.
 */
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { TYPE } from '../dns/wire/constants.js';
import type { DecodedMessage, WireRecord } from '../dns/wire/message.js';
import { Reader } from '../dns/wire/reader.js';

/** The serial of the query's SOA (authority section), or undefined when it has none. */
export function clientSerial(msg: DecodedMessage, buf: Uint8Array): number | undefined {
  const soa = msg.authorities.find((r) => r.type === TYPE.SOA);
  if (!soa) return undefined;
  try {
    const r = new Reader(buf);
    r.pos = soa.rdataOffset;
    r.name();
    r.name();
    return r.u32();
  } catch {
    return undefined;
  }
}

/** True when serial `a` is newer than `b` (RFC 1982 arithmetic). */
function newer(a: number, b: number): boolean {
  return a !== b && ((a - b) >>> 0) < 0x80000000;
}

/**
 * The IXFR records of the zone for this query; `current` when the client is up to date (answer the SOA alone);
 * undefined when the journal does not reach the client's serial (answer with the whole zone).
 */
export function ixfrRecords(msg: DecodedMessage, buf: Uint8Array, zone: ZoneSnapshot): WireRecord[] | 'current' | undefined {
  const serial = clientSerial(msg, buf);
  if (serial === undefined) return undefined;
  // A pre-signed zone (a secondary zone's copy) is known by its signer's serial, and journaled by it.
  const current = zone instanceof ZoneTree ? zone.journalSerial : zone.serial;
  if (serial === current || newer(serial, current)) return 'current';
  if (!(zone instanceof ZoneTree) || zone.journal.newest !== current) return undefined;
  const diff = zone.journal.since(serial);
  if (!diff) return undefined;
  const soa = zone.soa.records[0]!;
  return [soa, diff.fromSoa, ...diff.deleted, soa, ...diff.added, soa];
}
