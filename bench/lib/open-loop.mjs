/**
 * The open-loop load generator of bench/edge.mjs, in a process of its own (forked; one request per message):
 * `offered` requests/s over `concurrency` keep-alive sockets, each request started on its schedule whether or
 * not earlier ones finished (queued for a free socket), latency counted from the scheduled start. The first
 * `warm` seconds are sent but not counted (new sockets, a cold JIT). Its own process, so the edge's work in the
 * benchmark's process (reading nginx's access records) never delays a measured request: only the edge's
 * processes and the machine do.
 *
 * It also reports its own lateness (`late99`: p99 of how long after its scheduled time each counted request was
 * handed to the socket layer: timer resolution, the generator's garbage collections, its waits for the CPU), so a
 * p99 that comes from the generator, not the server, shows as such; and `sent99`, the p99 counted from when each
 * request was handed on rather than from its schedule (the generator's lateness left out; a wait for a free socket
 * still counted).
 *
 * Message in: { port | socketPath, host, seconds, offered, concurrency, warm }; message out: { p50, p99, max, count, late99, sent99 }.
 */
import http from 'node:http';

async function openLoop({ port, socketPath, host, seconds, offered, concurrency, warm }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = socketPath ? { socketPath } : { host: '127.0.0.1', port };
  const latencies = [];
  const lateness = [];
  const fromSent = [];
  const total = Math.round(offered * (seconds + warm));
  const t0 = performance.now() + 20;
  const counted = t0 + warm * 1000;
  let issued = 0;
  const pending = new Set();
  const issue = (scheduled) => {
    const sent = performance.now();
    if (scheduled >= counted) lateness.push(sent - scheduled);
    const p = new Promise((resolve) => {
      http.get({ ...target, path: '/', agent, headers: { host } }, (res) => {
        res.resume();
        res.on('end', () => {
          const now = performance.now();
          if (scheduled >= counted) { latencies.push(now - scheduled); fromSent.push(now - sent); }
          resolve();
        });
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
  lateness.sort((a, b) => a - b);
  fromSent.sort((a, b) => a - b);
  const at = (list, q) => list[Math.min(list.length - 1, Math.floor(list.length * q))];
  return { p50: at(latencies, 0.5), p99: at(latencies, 0.99), max: latencies[latencies.length - 1], count: latencies.length, late99: at(lateness, 0.99), sent99: at(fromSent, 0.99) };
}

process.on('message', async (m) => { process.send(await openLoop(m)); });
