/**
 * Sections 2-4 of bench/edge.mjs: a script's bucket binding (put+get pairs against Miniflare), deploys (new
 * version to first answer, memory per script) and account runtimes (first answer, memory per process). Each
 * takes the run's context: { edge, catalog, store, root, log, rounds, pairs, scripts, accounts }.
 */
import path from 'node:path';
import http from 'node:http';
import { Miniflare } from 'miniflare';
import { startEdge } from '../../dist/runtime/index.js';
import { silentLogger } from '../../dist/shared/logger.js';
import { PAIRS_SCRIPT } from './edge-catalog.mjs';
import { get, loadAverage, pssMb, rssMb } from './edge-load.mjs';

/** 2. Bucket binding pairs. */
export async function bucketPairs({ edge, catalog, root, log, rounds, pairs }) {
  catalog.deploy('pairs.bench', PAIRS_SCRIPT, [{ type: 'r2_bucket', name: 'B', bucketName: 'bench' }]);
  const mf = new Miniflare({ modules: true, script: PAIRS_SCRIPT, compatibilityDate: '2025-01-01', r2Buckets: ['B'], r2Persist: path.join(root, 'mf') });
  await mf.ready;
  const run = async (fn) => { const { ms } = await fn(); return pairs / (ms / 1000); };
  const body = JSON.stringify({ pairs, concurrency: 8 });
  const viaEdge = () => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: edge.port, method: 'POST', path: '/', headers: { host: 'pairs.bench' } }, (res) => {
      let text = ''; res.on('data', (c) => { text += c; });
      res.on('end', () => { try { resolve(JSON.parse(text)); } catch { reject(new Error(`pairs script answered ${res.statusCode}: ${text.slice(0, 300)}`)); } });
    });
    req.on('error', reject); req.end(body);
  });
  const viaMf = async () => (await mf.dispatchFetch('http://x/', { method: 'POST', body })).json();
  let bestEdge = 0; let bestMf = 0;
  // One unmeasured round of each first: both sides' JIT compilers and caches warm, as in a running service.
  await run(viaMf);
  await run(viaEdge);
  for (let r = 0; r < rounds; r++) {
    bestMf = Math.max(bestMf, await run(viaMf));
    bestEdge = Math.max(bestEdge, await run(viaEdge));
  }
  await mf.dispose();
  log(`bucket put+get pairs from a script, 1 KiB, 8 in flight, ${pairs} pairs x ${rounds} rounds (best), load average ${loadAverage()}:`);
  log(`  Miniflare in-script    ${bestMf.toFixed(0).padStart(7)} pairs/s`);
  log(`  Stratus edge script    ${bestEdge.toFixed(0).padStart(7)} pairs/s`);
  log(`  ratio Stratus/Miniflare ${(bestEdge / bestMf).toFixed(2)}x (target >= 5x)`);
}

/** 3. Deploy to serve, memory per script. */
export async function deploys({ edge, catalog, log, scripts }) {
  const deployTimes = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    catalog.deploy('deploy.bench', `export default { fetch() { return new Response("v${i}"); } };`);
    let res;
    do { res = await get(edge.port, 'deploy.bench'); } while (res.body !== `v${i}`);
    deployTimes.push(performance.now() - started);
  }
  deployTimes.sort((a, b) => a - b);
  const before = rssMb(edge.runtime.pid);
  const versionsBefore = catalog.n;
  for (let i = 0; i < scripts; i++) catalog.deploy(`s${i}.bench`, `const big = "x".repeat(1000); export default { fetch() { return new Response(big.slice(0, ${i})); } };`);
  await Promise.all(Array.from({ length: scripts }, (_, i) => get(edge.port, `s${i}.bench`)));
  const after = rssMb(edge.runtime.pid);
  log(`deploys: new version to first answer, median ${deployTimes[2].toFixed(0)} ms (min ${deployTimes[0].toFixed(0)}, max ${deployTimes[4].toFixed(0)})`);
  log(`memory: workerd RSS ${before.toFixed(0)} MiB with ${versionsBefore} versions, ${after.toFixed(0)} MiB with ${catalog.n}: ${((after - before) / scripts).toFixed(2)} MiB per script`);
}

/** 4. A runtime per account: start time and memory per runtime process (`replicas` processes per runtime). */
export async function runtimes({ catalog, store, log, accounts, replicas = 1 }) {
  const own = await startEdge({ listen: { host: '127.0.0.1', port: 0 }, catalog, logger: silentLogger(), bucketFor: (_a, name, o) => store.bucket(name, o), runtimes: accounts, replicas });
  try {
    const firsts = [];
    for (let i = 0; i < accounts; i++) {
      const host = `acct${i}.runtimes.bench`;
      catalog.deploy(host, `export default { fetch() { return new Response("account ${i}"); } };`);
      const bundle = catalog.bundles.get(`bench-${catalog.n}`);
      bundle.accountId = `account-${i}`;
      catalog.hosts.get(host).accountId = `account-${i}`;
      const started = performance.now();
      const res = await get(own.port, host);
      if (res.body !== `account ${i}`) throw new Error(`account ${i} answered ${res.status}: ${res.body}`);
      firsts.push(performance.now() - started);
    }
    const pids = Array.from({ length: accounts }, (_, i) => own.runtime.pidsOf(`account-${i}`)).flat();
    const rss = pids.map(rssMb);
    const pss = pids.map(pssMb);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    log(`account runtimes: ${accounts} accounts, one script each, each in its own runtime of ${replicas} workerd process${replicas === 1 ? '' : 'es'}, load average ${loadAverage()}:`);
    log(`  first answer of an account (its runtime started): median ${median(firsts).toFixed(0)} ms (min ${Math.min(...firsts).toFixed(0)}, max ${Math.max(...firsts).toFixed(0)})`);
    log(`  per runtime process: RSS median ${median(rss).toFixed(1)} MiB, PSS median ${median(pss).toFixed(1)} MiB (total PSS ${pss.reduce((a, b) => a + b, 0).toFixed(0)} MiB, ${(pss.reduce((a, b) => a + b, 0) / accounts).toFixed(1)} MiB per account)`);
  } finally {
    await own.close();
  }
}
