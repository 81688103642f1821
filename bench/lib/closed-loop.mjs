/**
 * The closed-loop load generator of bench/edge.mjs, in a process of its own (forked; one measure per message):
 * `concurrency` keep-alive connections, each sending its next request when the last one's answer ended, for
 * `seconds`. Its own process, so the edge's work in the benchmark's process (reading nginx's access records, the
 * store service) does not slow the load offered to the edge's rows only; it still shares the machine's cores.
 *
 * Message in: { port | socketPath, host, seconds, concurrency }; message out: { rps, p99, count } or { error }.
 */
import http from 'node:http';

async function closedLoop({ port, socketPath, host, seconds, concurrency }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = socketPath ? { socketPath } : { host: '127.0.0.1', port };
  const latencies = [];
  const end = Date.now() + seconds * 1000;
  const one = () => new Promise((resolve, reject) => {
    const t = performance.now();
    http.get({ ...target, path: '/', agent, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`)); else { latencies.push(performance.now() - t); resolve(); } });
    }).on('error', reject);
  });
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, async () => { while (Date.now() < end) await one(); }));
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p99: latencies[Math.floor(latencies.length * 0.99)], count: latencies.length };
}

process.on('message', async (m) => {
  try { process.send(await closedLoop(m)); } catch (e) { process.send({ error: String(e?.message ?? e) }); }
});
