/**
 * A growable byte writer for DNS messages with RFC 1035 §4.1.4 name compression. Names are written in the
 * canonical lowercase dotted form used throughout `src/dns` (no trailing dot, root = ''); every suffix written
 * at an offset below 0x4000 becomes a compression target for later names (when compression is asked for).
 */

/** Writes one DNS message. Reuse with {@link Writer.reset} to avoid allocations on the hot path. */
export class Writer {
  buf: Buffer;
  pos = 0;
  private names = new Map<string, number>();

  constructor(size = 4096) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Starts a new message (into `buf` when given: written in place, moved to a buffer of its own if it outgrows it). */
  reset(buf?: Buffer): void {
    if (buf) this.buf = buf;
    this.pos = 0;
    this.names.clear();
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** The buffer, with room for `n` more bytes at {@link pos} (for callers writing bytes themselves). */
  room(n: number): Buffer {
    this.ensure(n);
    return this.buf;
  }

  /** Writes one byte. */
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
  }

  /** Writes a big-endian 16-bit value. */
  u16(v: number): void {
    this.ensure(2);
    // Byte writes: cheaper than Buffer#writeUInt16BE's checks, millions of times in a transfer.
    this.buf[this.pos] = (v >>> 8) & 0xff;
    this.buf[this.pos + 1] = v & 0xff;
    this.pos += 2;
  }

  /** Writes a big-endian 32-bit value. */
  u32(v: number): void {
    this.ensure(4);
    const b = this.buf;
    const at = this.pos;
    b[at] = (v >>> 24) & 0xff;
    b[at + 1] = (v >>> 16) & 0xff;
    b[at + 2] = (v >>> 8) & 0xff;
    b[at + 3] = v & 0xff;
    this.pos += 4;
  }

  /** Overwrites a 16-bit value at an earlier offset. */
  patch16(at: number, v: number): void {
    this.buf[at] = (v >>> 8) & 0xff;
    this.buf[at + 1] = v & 0xff;
  }

  /** Copies bytes. */
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /**
   * Writes a domain name (`a.example.com`, '' for the root). With `compress`, known suffixes become pointers;
   * the name's own suffixes are remembered either way so that later compressible names can point at them.
   */
  name(name: string, compress = true): void {
    let rest = name;
    while (rest.length > 0) {
      const key = rest.toLowerCase();
      const known = this.names.get(key);
      if (compress && known !== undefined) {
        this.u16(0xc000 | known);
        return;
      }
      if (this.pos < 0x4000 && known === undefined) this.names.set(key, this.pos);
      const dot = rest.indexOf('.');
      const len = dot < 0 ? rest.length : dot;
      if (len === 0 || len > 63) throw new RangeError(`cannot write label "${rest.slice(0, len)}"`);
      this.ensure(len + 1);
      const buf = this.buf;
      let at = this.pos;
      buf[at++] = len;
      // Byte by byte, as latin1 (a label is short: cheaper than a call into Buffer#write).
      for (let i = 0; i < len; i++) {
        const c = rest.charCodeAt(i);
        if (c === 0x5c) throw new RangeError(`cannot write label "${rest.slice(0, len)}"`);
        buf[at++] = c & 0xff;
      }
      this.pos = at;
      rest = dot < 0 ? '' : rest.slice(dot + 1);
    }
    this.u8(0);
  }

  /**
   * Writes `name` as its first `prefixLength` characters' labels followed by `suffix` (the rest of the name, after
   * a dot), the suffix through {@link name}. The prefix's labels are not remembered as compression targets: a
   * zone transfer writes each owner name under the zone's name once, and remembering every one of a million
   * names cost it more than the rare pointer to them saves.
   */
  labelsThen(name: string, prefixLength: number, suffix: string): void {
    let start = 0;
    while (start < prefixLength) {
      let dot = name.indexOf('.', start);
      if (dot < 0 || dot > prefixLength) dot = prefixLength;
      const len = dot - start;
      if (len === 0 || len > 63) throw new RangeError(`cannot write label "${name.slice(start, dot)}"`);
      this.ensure(len + 1);
      const buf = this.buf;
      let at = this.pos;
      buf[at++] = len;
      for (let i = start; i < dot; i++) {
        const c = name.charCodeAt(i);
        if (c === 0x5c) throw new RangeError(`cannot write label "${name.slice(start, dot)}"`);
        buf[at++] = c & 0xff;
      }
      this.pos = at;
      start = dot + 1;
    }
    this.name(suffix);
  }

  /** A copy of what was written. */
  result(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

/** Longest name on the wire, in octets (RFC 1035 §3.1). */
export const MAX_NAME_OCTETS = 255;

/**
 * Encodes a name without compression (for RDATA built ahead of time); RangeError for a name that is not
 * ASCII (labels go out byte for byte: IDNs must be in punycode) or longer than 255 octets.
 */
export function encodeName(name: string): Buffer {
  if (/[^\x00-\x7f]/.test(name)) throw new RangeError(`cannot write name "${name}": not ASCII (use punycode)`);
  const w = new Writer(Math.max(16, name.length + 2));
  w.name(name, false);
  const out = w.result();
  if (out.length > MAX_NAME_OCTETS) throw new RangeError(`name of ${out.length} octets; at most ${MAX_NAME_OCTETS}`);
  return out;
}
