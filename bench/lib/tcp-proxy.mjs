/**
 * A TCP proxy the soak controls (the same behaviour as test/faults/tcp-proxy.ts): `pass`, `refuse` (new
 * connections reset, open ones cut), `stall` (nothing flows either way until `pass`), and `cut()`.
 */
import net from 'node:net';

/** Listens on 127.0.0.1 (port 0) and forwards to `target` ({host, port}). */
export async function startTcpProxy(target) {
  let mode = 'pass';
  const pairs = new Set();
  const held = new Set();
  const connect = (client) => {
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
  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (mode === 'refuse') { client.resetAndDestroy(); return; }
    if (mode === 'stall') { client.pause(); held.add(client); client.on('close', () => held.delete(client)); return; }
    connect(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy = {
    port: server.address().port,
    setMode(next) {
      mode = next;
      if (next === 'refuse') proxy.cut();
      if (next === 'stall') for (const p of pairs) { p.client.pause(); p.upstream.pause(); }
      if (next === 'pass') {
        for (const p of pairs) { p.client.resume(); p.upstream.resume(); }
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
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}
