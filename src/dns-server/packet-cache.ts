/**
 * A response cache keyed by the query's bytes after the id (question name lowercased, everything else raw,
 * plus the transport and the RD/CD bits), like PowerDNS's packet cache. A hit costs one copy: the cached
 * response with the query's id and question-name bytes (so the client's letter case comes back, RFC 4343).
 * The whole cache is dropped whenever any zone snapshot changes (the zone cache's generation), so it never
 * serves anything a fresh lookup would not.
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

/** The cache itself. */
export class PacketCache {
  private readonly map = new Map<string, Buffer>();
  private generation = -1;

  constructor(private readonly maxEntries = 100_000) {}

  /** Drops everything when the zones changed since the last call. */
  sync(generation: number): void {
    if (generation !== this.generation) {
      this.map.clear();
      this.generation = generation;
    }
  }

  /** The response for a query with this key, adapted to the query (id, name case); undefined on a miss. */
  get(key: string, query: Uint8Array): Buffer | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    const out = Buffer.allocUnsafe(hit.length);
    hit.copy(out);
    out[0] = query[0]!;
    out[1] = query[1]!;
    const end = questionNameEnd(query);
    out.set(query.subarray(12, end), 12);
    return out;
  }

  /** Remembers a response. */
  set(key: string, response: Buffer): void {
    if (this.map.size >= this.maxEntries) this.map.clear();
    this.map.set(key, response);
  }
}
