/**
 * Free local ports for peers started in tests. The port is drawn at random below the kernel's ephemeral range
 * (`/proc/sys/net/ipv4/ip_local_port_range`, 32768 and up on Linux), then checked free on UDP and TCP: a test
 * binding port 0 (most of them, run four files at a time) is given a port from that range, so it cannot take
 * the number between this call and its use, as it could when this helper asked the kernel for one.
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';

/** The lowest port the kernel hands out for port 0 (32768 where /proc does not say). */
function ephemeralFloor(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

const FLOOR = 20_000;

/** True when `port` can be bound on 127.0.0.1 for both UDP and TCP now. */
async function isFree(port: number): Promise<boolean> {
  const udp = dgram.createSocket('udp4');
  const udpOk = await new Promise<boolean>((resolve) => {
    udp.once('error', () => resolve(false));
    udp.bind(port, '127.0.0.1', () => resolve(true));
  });
  if (!udpOk) { udp.close(); return false; }
  const tcpOk = await new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
  udp.close();
  return tcpOk;
}

/** A port free on 127.0.0.1 for both UDP and TCP at the time of the call, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  const ceiling = ephemeralFloor();
  for (;;) {
    const port = FLOOR + Math.floor(Math.random() * Math.max(1, ceiling - FLOOR));
    if (await isFree(port)) return port;
  }
}
