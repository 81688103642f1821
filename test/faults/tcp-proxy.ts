/**
 * A TCP proxy between Stratus and PostgreSQL that the test controls: `pass` forwards, `refuse` closes every
 * new connection at once (a server that is down), `stall` accepts and forwards nothing in either direction (a
 * partitioned network: bytes wait, as TCP would retransmit them, and flow again on `pass`), and `cut()` resets
 * every open connection (a crash, a failover, a cut cable).
 */
import net from 'node:net';

/** What the proxy does with traffic. */
export type ProxyMode = 'pass' | 'refuse' | 'stall';

/** A running proxy. */
export interface TcpProxy {
  port: number;
  /** Connections open now. */
  readonly open: number;
  setMode(mode: ProxyMode): void;
  /** Resets every open connection. */
  cut(): void;
  close(): Promise<void>;
}

interface Pair { client: net.Socket; upstream: net.Socket }

/** Listens on 127.0.0.1 (port 0) and forwards to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  const pairs = new Set<Pair>();
  const held = new Set<net.Socket>();
  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (mode === 'refuse') { client.resetAndDestroy(); return; }
    if (mode === 'stall') { client.pause(); held.add(client); client.on('close', () => held.delete(client)); return; }
    connect(client);
  });
  const connect = (client: net.Socket): void => {
    const upstream = net.connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => { pairs.delete(pair); client.destroy(); upstream.destroy(); };
    client.on('close', end);
    upstream.on('close', end);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const proxy: TcpProxy = {
    port,
    get open() { return pairs.size + held.size; },
    setMode(next) {
      mode = next;
      if (next === 'refuse') proxy.cut();
      if (next === 'stall') for (const p of pairs) { p.client.pause(); p.upstream.pause(); }
      if (next === 'pass') {
        for (const p of pairs) { p.client.resume(); p.upstream.resume(); }
        // Connections accepted while stalled reach the server now (their first bytes waited in the socket).
        for (const s of held) connect(s);
        held.clear();
      }
    },
    cut() {
      for (const p of pairs) { p.client.resetAndDestroy(); p.upstream.destroy(); }
      pairs.clear();
      for (const s of held) s.resetAndDestroy();
      held.clear();
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
