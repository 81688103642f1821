/** Free local ports for peers started in tests (bound to port 0 on UDP and TCP, then released). */
import dgram from 'node:dgram';
import net from 'node:net';

/** A port free on 127.0.0.1 for both UDP and TCP at the time of the call. */
export async function freePort(): Promise<number> {
  for (;;) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', () => resolve()));
    const port = udp.address().port;
    const ok = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    udp.close();
    if (ok) return port;
  }
}
