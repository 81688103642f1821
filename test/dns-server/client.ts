/** A raw DNS client over UDP and TCP for protocol tests (no retries, explicit timeouts). */
import dgram from 'node:dgram';
import net from 'node:net';

/** Sends one UDP datagram and resolves with the first reply, or undefined after `ms`. */
export function udpExchange(port: number, msg: Uint8Array, ms = 1000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => { s.close(); resolve(undefined); }, ms);
    s.on('message', (reply) => { clearTimeout(timer); s.close(); resolve(reply); });
    s.send(msg, port, '127.0.0.1');
  });
}

/** Opens a TCP connection and collects length-prefixed replies. */
export async function tcpConnect(port: number): Promise<{ socket: net.Socket; replies: Buffer[]; closed: Promise<void>; send(...msgs: Uint8Array[]): void; waitFor(n: number, ms?: number): Promise<Buffer[]> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  const replies: Buffer[] = [];
  let pending = Buffer.alloc(0);
  socket.on('data', (d: Buffer) => {
    pending = Buffer.concat([pending, d]);
    while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
      const len = pending.readUInt16BE(0);
      replies.push(pending.subarray(2, 2 + len));
      pending = pending.subarray(2 + len);
    }
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    replies,
    closed,
    send(...msgs: Uint8Array[]) {
      socket.write(Buffer.concat(msgs.flatMap((m) => { const h = Buffer.alloc(2); h.writeUInt16BE(m.length); return [h, Buffer.from(m)]; })));
    },
    async waitFor(n: number, ms = 3000) {
      const end = Date.now() + ms;
      while (replies.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      return replies;
    },
  };
}
