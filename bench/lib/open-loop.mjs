/**
 * The open-loop load generator of bench/edge.mjs, in a process of its own (forked; one request per message):
 * `offered` requests/s over `concurrency` keep-alive sockets, each request started on its schedule whether or
 * not earlier ones finished (queued for a free socket), latency counted from the scheduled start. The first
 * `warm` seconds are sent but not counted (new sockets, a cold JIT). Its own process, so the edge's work in the
 * benchmark's process (reading nginx's access records) never delays a measured request: only the edge's
 * processes and the machine do.
 *
 * Message in: { port | socketPath, host, seconds, offered, concurrency, warm }; message out: { p50, p99, max, count }.
 */
import http from 'node:http';

async function openLoop({ port, socketPath, host, seconds, offered, concurrency, warm }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = socketPath ? { socketPath } : { host: '127.0.0.1', port };
  const latencies = [];
  const total = Math.round(offered * (seconds + warm));
  const t0 = performance.now() + 20;
  const counted = t0 + warm * 1000;
  let issued = 0;
  const pending = new Set();
  const issue = (scheduled) => {
    const p = new Promise((resolve) => {
      http.get({ ...target, path: '/', agent, headers: { host } }, (res) => {
        res.resume();
        res.on('end', () => { if (scheduled >= counted) latencies.push(performance.now() - scheduled); resolve(); });
      }).on('error', () => { if (scheduled >= counted) latencies.push(Infinity); resolve(); });
    });
    pending.add(p);
    void p.then(() => pending.delete(p));
  };
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (issued < total && t0 + (issued * 1000) / offered <= now) { issue(t0 + (issued * 1000) / offered); issued++; }
      if (issued < total) setTimeout(tick, 1); else resolve();
    };
    setTimeout(tick, 20);
  });
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  return { p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1], count: latencies.length };
}

process.on('message', async (m) => { process.send(await openLoop(m)); });
