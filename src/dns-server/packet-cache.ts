/**
 * A response cache keyed by the query's bytes after the id (question name lowercased, everything else raw,
 * plus the transport and the RD/CD bits), like PowerDNS's packet cache. A hit costs one copy: the cached
 * response with the query's id and question-name bytes (so the client's letter case comes back, RFC 4343).
 * Each answer is filed under the names it was read from (zone-set.ts invalidations drop exactly those), or
 * under its whole zone when it may change with anything in it (negative answers, which carry the SOA serial,
 * and wildcard answers); so it never serves anything a fresh lookup would not, and a write to one name keeps
 * the rest of the zone's answers.
 */

/** Where the question name of a query ends (offset after its root label), or -1 when not a plain name. */
export function questionNameEnd(buf: Uint8Array): number {
  let pos = 12;
  for (let hops = 0; hops < 128; hops++) {
    if (pos >= buf.length) return -1;
    const len = buf[pos]!;
    if (len === 0) return pos + 1;
    if (len > 63) return -1;
    pos += len + 1;
  }
  return -1;
}

/** The cache key of a plain query, or undefined when the query is not eligible. */
export function packetKey(buf: Uint8Array, transport: 'udp' | 'tcp'): string | undefined {
  // QR=0, opcode QUERY, QDCOUNT=1, ANCOUNT=0, NSCOUNT=0, ARCOUNT<=1
  if (buf.length < 17 || buf.length > 600 || (buf[2]! & 0xf8) !== 0) return undefined;
  if (buf[4] !== 0 || buf[5] !== 1 || buf[6] !== 0 || buf[7] !== 0 || buf[8] !== 0 || buf[9] !== 0 || buf[10] !== 0 || buf[11]! > 1) return undefined;
  const end = questionNameEnd(buf);
  if (end < 0) return undefined;
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.length);
  return `${transport === 'udp' ? 'u' : 't'}${buf[2]! & 0x01}${buf[3]! & 0x10}${b.toString('latin1', 12, end).toLowerCase()}${b.toString('latin1', end)}`;
}

/** What a cached answer depends on: names of one zone, or (`names` undefined) anything in the zone. */
export interface AnswerDeps {
  /** The zone answered from; '' for answers from no zone (REFUSED). */
  zoneId: string;
  names: readonly string[] | undefined;
}

interface Entry {
  response: Buffer;
  zoneId: string;
}

/** The cached answers of one zone, by the names they depend on. */
interface ZoneIndex {
  byName: Map<string, Set<string>>;
  /** Answers that may change with any change of the zone (negative answers carry the serial, wildcards, ...). */
  any: Set<string>;
}

/** The cache itself. */
export class PacketCache {
  private readonly map = new Map<string, Entry>();
  private readonly zones = new Map<string, ZoneIndex>();
  /** Index references kept (some may point at answers already gone); past a bound everything starts over. */
  private refs = 0;

  constructor(private readonly maxEntries = 100_000) {}

  /** The response for a query with this key, adapted to the query (id, name case); undefined on a miss. */
  get(key: string, query: Uint8Array): Buffer | undefined {
    const hit = this.map.get(key)?.response;
    if (!hit) return undefined;
    const out = Buffer.allocUnsafe(hit.length);
    hit.copy(out);
    out[0] = query[0]!;
    out[1] = query[1]!;
    const end = questionNameEnd(query);
    out.set(query.subarray(12, end), 12);
    return out;
  }

  /** The zone a cached answer was filed under ('' for answers from no zone); undefined when not cached. */
  zoneOf(key: string): string | undefined {
    return this.map.get(key)?.zoneId;
  }

  /** Remembers a response and what it depends on. */
  set(key: string, response: Buffer, deps: AnswerDeps): void {
    if (this.map.size >= this.maxEntries || this.refs >= 4 * this.maxEntries) this.clear();
    this.map.set(key, { response, zoneId: deps.zoneId });
    let zone = this.zones.get(deps.zoneId);
    if (!zone) {
      zone = { byName: new Map(), any: new Set() };
      this.zones.set(deps.zoneId, zone);
    }
    if (!deps.names) {
      zone.any.add(key);
      this.refs++;
      return;
    }
    for (const name of deps.names) {
      let keys = zone.byName.get(name);
      if (!keys) { keys = new Set(); zone.byName.set(name, keys); }
      keys.add(key);
      this.refs++;
    }
  }

  /**
   * Drops the answers that may have changed: those depending on these names of the zone plus the zone's
   * answers that depend on anything in it; the whole zone without names; everything without a zone.
   */
  invalidate(zoneId: string | undefined, names?: Iterable<string>): void {
    if (zoneId === undefined) { this.clear(); return; }
    const zone = this.zones.get(zoneId);
    if (!zone) return;
    if (!names) {
      this.drop(zone.any, zoneId);
      for (const keys of zone.byName.values()) this.drop(keys, zoneId);
      this.zones.delete(zoneId);
      return;
    }
    this.drop(zone.any, zoneId);
    zone.any.clear();
    for (const name of names) {
      const keys = zone.byName.get(name);
      if (!keys) continue;
      this.drop(keys, zoneId);
      zone.byName.delete(name);
    }
  }

  private drop(keys: Iterable<string>, zoneId: string): void {
    for (const key of keys) {
      if (this.map.get(key)?.zoneId === zoneId) this.map.delete(key);
      this.refs--;
    }
  }

  private clear(): void {
    this.map.clear();
    this.zones.clear();
    this.refs = 0;
  }
}
