/**
 * A full AXFR over one TCP connection, timed from the query: when the first byte came, when the closing SOA came,
 * how many messages and bytes. Where a transfer's time goes (waiting for the first message, or the stream's rate),
 * which kdig's wall time alone does not tell. Parses just enough of each message to count its SOA records.
 */
import net from 'node:net';

/** The AXFR query for `zone` (id 1), with its TCP length in front. */
function axfrQuery(zone) {
  const labels = zone.replace(/\.$/, '').split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  const body = Buffer.concat([Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 252, 0, 1])]);
  return Buffer.concat([Buffer.from([body.length >> 8, body.length & 0xff]), body]);
}

/** The offset just past the name at `at` in `msg`. */
function skipName(msg, at) {
  for (;;) {
    const len = msg[at];
    if (len === 0) return at + 1;
    if (len >= 0xc0) return at + 2;
    at += 1 + len;
  }
}

/** How many SOA records the answer section of `msg` holds. */
function soaCount(msg) {
  const qd = msg.readUInt16BE(4);
  const an = msg.readUInt16BE(6);
  let at = 12;
  for (let i = 0; i < qd; i++) at = skipName(msg, at) + 4;
  let soas = 0;
  for (let i = 0; i < an; i++) {
    at = skipName(msg, at);
    if (msg.readUInt16BE(at) === 6) soas++;
    at += 10 + msg.readUInt16BE(at + 8);
  }
  return soas;
}

/** Transfers `zone` from 127.0.0.1:`port`: { firstMs, lastMs, messages, bytes }. */
export function probeAxfr(port, zone) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let t0 = 0;
    let firstMs = -1;
    let pending = Buffer.alloc(0);
    let messages = 0;
    let bytes = 0;
    let soas = 0;
    socket.on('connect', () => { t0 = performance.now(); socket.write(axfrQuery(zone)); });
    socket.on('data', (chunk) => {
      if (firstMs < 0) firstMs = performance.now() - t0;
      bytes += chunk.length;
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const len = pending.readUInt16BE(0);
        soas += soaCount(pending.subarray(2, 2 + len));
        messages++;
        pending = pending.subarray(2 + len);
      }
      if (soas >= 2) { socket.destroy(); resolve({ firstMs, lastMs: performance.now() - t0, messages, bytes }); }
    });
    socket.on('error', reject);
    socket.on('close', () => { if (soas < 2) reject(new Error(`the transfer ended after ${messages} messages without its closing SOA`)); });
  });
}
