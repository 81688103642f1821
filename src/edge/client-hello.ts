/**
 * Reads the server name (SNI) out of a TLS ClientHello before the handshake starts, so the HTTPS edge can pick
 * the zone's lowest TLS version for the connection (OpenSSL fixes the allowed versions when the TLS session is
 * created: a context chosen in the SNI callback cannot change them).
 */

/** Whether `buf` holds a whole first TLS record (or is not TLS at all): the peek can stop. */
export function clientHelloComplete(buf: Buffer): boolean {
  if (buf.length >= 1 && buf[0] !== 22) return true;
  if (buf.length < 5) return false;
  return buf.length >= 5 + buf.readUInt16BE(3);
}

/** The server name of the ClientHello in `buf` (lowercase), or undefined when it has none or is not one. */
export function clientHelloServerName(buf: Buffer): string | undefined {
  try {
    if (buf[0] !== 22 || buf[5] !== 1) return undefined;
    const end = Math.min(buf.length, 5 + buf.readUInt16BE(3));
    let p = 5 + 4 + 2 + 32; // record header, handshake header, client version, random
    p += 1 + buf[p]!; // session id
    p += 2 + buf.readUInt16BE(p); // cipher suites
    p += 1 + buf[p]!; // compression methods
    const extEnd = Math.min(end, p + 2 + buf.readUInt16BE(p));
    p += 2;
    while (p + 4 <= extEnd) {
      const type = buf.readUInt16BE(p);
      const len = buf.readUInt16BE(p + 2);
      p += 4;
      if (type === 0) {
        let q = p + 2; // server name list length
        while (q + 3 <= p + len) {
          const nameType = buf[q]!;
          const nameLen = buf.readUInt16BE(q + 1);
          if (nameType === 0) return buf.subarray(q + 3, q + 3 + nameLen).toString('latin1').toLowerCase();
          q += 3 + nameLen;
        }
        return undefined;
      }
      p += len;
    }
  } catch { /* a truncated or malformed hello */ }
  return undefined;
}
