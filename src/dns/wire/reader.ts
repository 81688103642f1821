/**
 * A bounds-checked reader of DNS messages. Every read past the end throws {@link WireError}; name
 * decompression only follows pointers to offsets before the start of the labels read since the last jump (strictly
 * decreasing targets), which rules out loops, and stops at
 * 255 bytes of name (RFC 1035 §3.1).
 */

/** A malformed message. */
export class WireError extends Error {}

/** Reads one message. */
export class Reader {
  pos = 0;

  constructor(readonly buf: Uint8Array) {}

  /** Bytes left. */
  get left(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new WireError('message truncated');
  }

  /** Reads one byte. */
  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  /** Reads a big-endian 16-bit value. */
  u16(): number {
    this.need(2);
    const v = (this.buf[this.pos]! << 8) | this.buf[this.pos + 1]!;
    this.pos += 2;
    return v;
  }

  /** Reads a big-endian 32-bit value. */
  u32(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return ((b[p]! << 24) >>> 0) + (b[p + 1]! << 16) + (b[p + 2]! << 8) + b[p + 3]!;
  }

  /** Reads n raw bytes (a view, not a copy). */
  bytes(n: number): Uint8Array {
    this.need(n);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** Reads a possibly compressed name; returns it dotted without a trailing dot, case preserved. */
  name(): string {
    const labels: string[] = [];
    let pos = this.pos;
    let jumped = false;
    let total = 1;
    let segmentStart = pos;
    const buf = this.buf;
    for (;;) {
      if (pos >= buf.length) throw new WireError('name runs past the end');
      const len = buf[pos]!;
      if (len === 0) {
        pos += 1;
        break;
      }
      const kind = len & 0xc0;
      if (kind === 0xc0) {
        if (pos + 1 >= buf.length) throw new WireError('pointer runs past the end');
        const target = ((len & 0x3f) << 8) | buf[pos + 1]!;
        if (!jumped) this.pos = pos + 2;
        if (target >= segmentStart) throw new WireError('compression pointer does not point backwards');
        jumped = true;
        pos = target;
        segmentStart = target;
        continue;
      }
      if (kind !== 0) throw new WireError('unknown label type');
      if (pos + 1 + len > buf.length) throw new WireError('label runs past the end');
      total += len + 1;
      if (total > 255) throw new WireError('name longer than 255 bytes');
      let label = '';
      for (let i = pos + 1; i <= pos + len; i++) {
        const c = buf[i]!;
        label += c === 0x2e || c === 0x5c ? `\\${String.fromCharCode(c)}` : String.fromCharCode(c);
      }
      labels.push(label);
      pos += 1 + len;
    }
    if (!jumped) this.pos = pos;
    return labels.join('.');
  }
}
