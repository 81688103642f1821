/** Small DNS client helpers of the DNS benches (big-zone.mjs, dns-server.mjs): free ports, query packets, "does this name answer", polling. */
import dgram from 'node:dgram';
import net from 'node:net';

/** A port free for both UDP and TCP on 127.0.0.1. */
export async function freePort() {
  for (;;) {
    const udp = dgram.createSocket('udp4');
    await new Promise((r) => udp.bind(0, '127.0.0.1', r));
    const port = udp.address().port;
    const ok = await new Promise((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    udp.close();
    if (ok) return port;
  }
}

/** A query for `name` and `type` (RD off) with this id. */
export function queryPacket(id, name, type) {
  const labels = name.split('.').filter(Boolean);
  const buf = Buffer.alloc(12 + labels.reduce((n, l) => n + l.length + 1, 0) + 5);
  buf.writeUInt16BE(id, 0);
  buf.writeUInt16BE(1, 4);
  let o = 12;
  for (const l of labels) { buf[o++] = l.length; o += buf.write(l, o, 'latin1'); }
  buf[o++] = 0;
  buf.writeUInt16BE(type, o);
  buf.writeUInt16BE(1, o + 2);
  return buf;
}

let nextId = 1;
/** Per socket: the pending queries by id (one 'message' listener each, not one per query in flight). */
const pendingBySocket = new WeakMap();
/** The answer count of an A query for `name` (-1 on timeout after 1 s). */
export function answerCount(sock, port, name) {
  let pending = pendingBySocket.get(sock);
  if (!pending) {
    pending = new Map();
    pendingBySocket.set(sock, pending);
    sock.on('message', (msg) => {
      const done = pending.get(msg.readUInt16BE(0));
      if (done) done(msg.readUInt16BE(6));
    });
  }
  let id = (nextId = (nextId + 1) & 0xffff);
  while (pending.has(id)) id = (nextId = (nextId + 1) & 0xffff);
  return new Promise((resolve) => {
    const timer = setTimeout(() => { pending.delete(id); resolve(-1); }, 1000);
    pending.set(id, (count) => { clearTimeout(timer); pending.delete(id); resolve(count); });
    sock.send(queryPacket(id, name, 1), port, '127.0.0.1');
  });
}

/** Polls `fn` until it returns something truthy (every 100 ms), or throws after `ms`. */
export async function waitFor(what, fn, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls `name` on `port` until it has an answer; the time since `t0` (ms), or NaN after 5 s. */
export async function visible(sock, port, name, t0) {
  for (let i = 0; performance.now() - t0 < 5000; i++) {
    if ((await answerCount(sock, port, name)) > 0) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
  }
  return NaN;
}

/**
 * Write-to-visible for a server that applies writes in the order sent (Knot, fed by one knsupdate): one loop
 * polls the oldest write not seen yet, every 5 ms, and gives up on a write 5 s after it was sent. Polling every
 * write separately would send hundreds of queries per millisecond to a server that falls behind (Knot here),
 * a load of the benchmark's own making on the shared cores that every latency figure would then carry.
 */
export function orderedVisibility(sock, port) {
  const queue = [];
  let running = false;
  const run = async () => {
    running = true;
    while (queue.length) {
      const w = queue[0];
      if (performance.now() - w.t > 5000) { queue.shift(); w.resolve(NaN); continue; }
      if ((await answerCount(sock, port, w.name)) > 0) { queue.shift(); w.resolve(performance.now() - w.t); continue; }
      await new Promise((r) => setTimeout(r, 5));
    }
    running = false;
  };
  return (name, t) => new Promise((resolve) => {
    queue.push({ name, t, resolve });
    if (!running) void run();
  });
}
