#!/usr/bin/env node
/**
 * TLS benchmark of the HTTPS edge (prints, never asserts). Run after `npm run build`:
 *
 *   node bench/tls.mjs [--seconds 5] [--concurrency 16] [--rounds 3] [--with-node 1] [--front-workers N] [--modes full,resumed,keepalive]
 *
 * Stratus's `--edge-tls` as `stratus serve` runs it (the nginx front ends TLS: `runtime/front/tls-config.ts`, its
 * stream server reading the server name and handing the connection to its HTTPS listener, the fast path to the
 * script version's socket; the certificate from a CertificateSource) against what a self-hoster runs: Debian's
 * nginx ending TLS with the same ECDSA P-256 certificate in front of workerd alone, running the same hello-world
 * script (`--front-workers N`: Stratus's nginx workers, default one per core as `stratus serve`; the peer runs one).
 * `--with-node 1` adds the design before (Node ends TLS and forwards over HTTP to `--edge`). Measured,
 * rounds interleaved, best of each:
 *   - new (full) TLS handshakes/s: connect, handshake (chain verified by the client), close;
 *   - resumed handshakes/s: the same with the last session ticket the server gave (the share actually resumed
 *     is printed);
 *   - HTTPS keep-alive requests/s of the hello-world script.
 * The ratios Stratus/nginx, the server side's CPU per operation (Stratus: nginx's workers, the script's workerd
 * and this process; the peer: nginx's worker and workerd) and the load average (the machine is shared) are
 * printed. The clients run in a child process, so their CPU is not counted.
 */
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { cpuTimeMs } from '../dist/runtime/proc-stat.js';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const SECONDS = Number(args.seconds ?? 5);
const CONCURRENCY = Number(args.concurrency ?? 16);
const ROUNDS = Number(args.rounds ?? 3);
const HOST = 'hello.bench';

if (args.client) await client(JSON.parse(args.client));
else await main();

/** The load generator (a child process): runs one measure and sends { ops, reused } to the parent. */
async function client({ port, mode, seconds, concurrency, caFile }) {
  const ca = fs.readFileSync(caFile);
  const end = Date.now() + seconds * 1000;
  let ops = 0;
  let reused = 0;
  let errors = 0;
  let session;
  const connect = (withSession) => new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port, servername: HOST, ca, ...(withSession && session ? { session } : {}) }, () => {
      ops++;
      if (s.isSessionReused()) reused++;
      s.destroy();
      resolve();
    });
    s.on('error', () => { errors++; s.destroy(); resolve(); });
  });
  if (mode === 'resumed') {
    await new Promise((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port, servername: HOST, ca }, () => {});
      s.once('session', (sess) => { session = sess; s.destroy(); resolve(); });
      s.on('error', () => resolve());
    });
  }
  process.send({ started: true }); // the parent reads the servers' CPU from here (not the child's start)
  if (mode === 'keepalive') {
    const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca });
    const one = () => new Promise((resolve) => {
      https.get({ host: '127.0.0.1', port, servername: HOST, headers: { host: HOST }, agent, path: '/' }, (res) => {
        res.resume();
        res.on('end', () => { if (res.statusCode === 200) ops++; else errors++; resolve(); });
      }).on('error', () => { errors++; resolve(); });
    });
    await Promise.all(Array.from({ length: concurrency }, async () => { while (Date.now() < end) await one(); }));
    agent.destroy();
  } else {
    await Promise.all(Array.from({ length: concurrency }, async () => { while (Date.now() < end) await connect(mode === 'resumed'); }));
  }
  process.send({ ops, reused, errors });
  process.exit(0);
}

function cpuOfPid(pid) {
  const ms = cpuTimeMs(pid);
  if (ms === undefined) throw new Error(`no CPU time for process ${pid}`);
  return ms;
}

async function main() {
  const { openDatabase } = await import('../dist/db/database.js');
  const { startEdge } = await import('../dist/runtime/index.js');
  const { startHttpsEdge } = await import('../dist/runtime/https-edge.js');
  const { startEdgeTls } = await import('../dist/runtime/edge-tls.js');
  const { ZonePolicies } = await import('../dist/edge/zone-policy.js');
  const { parseRoutePattern } = await import('../dist/edge/route-match.js');
  const { silentLogger } = await import('../dist/shared/logger.js');
  const { NGINX_BINARY, startNginx, startPlainWorkerd } = await import('./lib/edge-peers.mjs');
  const log = (line) => process.stdout.write(`${line}\n`);
  if (!NGINX_BINARY) { log('nginx is not installed: nothing to compare with'); return; }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-bench-tls-'));
  const ossl = (a) => execFileSync('openssl', a, { cwd: root, stdio: 'pipe' });
  ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=bench CA']);
  fs.writeFileSync(path.join(root, 'leaf.ext'), `subjectAltName=DNS:${HOST},DNS:*.bench\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${HOST}`]);
  ossl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x7e', '-days', '2', '-out', 'leaf.pem', '-extfile', 'leaf.ext']);
  const certFile = path.join(root, 'leaf.pem');
  const keyFile = path.join(root, 'leaf.key');
  const caFile = path.join(root, 'ca.pem');
  const HELLO = 'export default { fetch() { return new Response("hello world"); } };';

  const target = { kind: 'script', accountId: 'bench', scriptName: 'hello', versionId: 'v1' };
  const catalog = {
    async resolve(h) { return h === HOST ? target : { kind: 'unknown', status: 530, reason: 'unknown' }; },
    async bundle() {
      return { accountId: 'bench', scriptName: 'hello', versionId: 'v1', mainModule: 'index.js', compatibilityDate: '2025-01-01', compatibilityFlags: [], bindings: [],
        modules: [{ name: 'index.js', type: 'esm', content: new TextEncoder().encode(HELLO) }] };
    },
    /** The hostname's one route (the fast path compiles it). */
    async hostRoutes(h) {
      return h === HOST ? { accountId: 'bench', passThrough: false, policy: false, routes: [{ pattern: parseRoutePattern(`${HOST}/*`), script: 'hello', versions: [{ versionId: 'v1', percentage: 100 }] }] } : undefined;
    },
    onChange() { return () => {}; },
  };
  const database = await openDatabase({ dataDir: path.join(root, 'data') });
  const policies = new ZonePolicies(database.db);
  const cert = { id: 'bench', hosts: [HOST, '*.bench'], certificatePem: fs.readFileSync(certFile, 'utf8'), privateKeyPem: fs.readFileSync(keyFile, 'utf8'),
    expiresOn: new Date(Date.now() + 86_400_000), kind: 'custom', priority: 0 };
  const certificates = { lookup: (n) => (n === HOST || n.endsWith('.bench') ? cert : null), all: () => [cert], onChange: () => () => {} };
  // Stratus as `stratus serve --edge-tls` runs it: nginx ends TLS (stream -> its HTTPS listener), the fast path to the script's socket.
  const edge = await startEdge({ listen: { host: '127.0.0.1', port: 0 }, catalog, logger: silentLogger(), bucketFor: () => { throw new Error('no buckets'); }, front: 'nginx', fastPath: true, tls: { host: '127.0.0.1', port: 0 },
    ...(args['front-workers'] ? { frontWorkers: Number(args['front-workers']) } : {}) });
  if (!edge.runtime.tlsFront) { log('nginx has no stream module (libnginx-mod-stream): Stratus would end TLS in Node'); }
  const stratus = await startEdgeTls({ listen: { host: '127.0.0.1', port: 0 }, tls: undefined, certificates, policies, edge, edgeHost: '127.0.0.1', logger: silentLogger() });
  // Before: Node ends TLS and forwards over HTTP to the same edge (only with --with-node).
  const node = args['with-node'] ? await startHttpsEdge({ listen: { host: '127.0.0.1', port: 0 }, tls: undefined, certificates, policies,
    edge: { host: '127.0.0.1', port: edge.port, secret: edge.runtime.frontSecret }, logger: silentLogger() }) : undefined;
  // The self-hoster's shape: nginx ending TLS with the same certificate in front of workerd alone.
  const plain = await startPlainWorkerd(root, HELLO);
  const nginx = await startNginx(root, `127.0.0.1:${plain.port}`, { tls: { cert: certFile, key: keyFile } });

  // the fast path learns the hostname from the first answers, then nginx reloads
  for (let i = 0; i < 100 && !edge.runtime.nginxConfig().includes(`${HOST} $stratus_fh`); i++) {
    await new Promise((resolve) => { https.get({ host: '127.0.0.1', port: stratus.port, servername: HOST, headers: { host: HOST }, ca: fs.readFileSync(caFile), agent: false }, (r) => { r.resume(); r.on('end', resolve); }).on('error', resolve); });
    await new Promise((r) => setTimeout(r, 100));
  }
  await edge.runtime.frontSettled();
  const sum = (pids) => pids.filter((p) => p !== undefined).reduce((total, pid) => total + cpuOfPid(pid), 0);
  const peers = {
    stratus: { label: `Stratus --edge-tls (${edge.runtime.tlsFront ? 'nginx ends TLS' : 'Node ends TLS'}, fast path)`, port: stratus.port, cpu: () => ({ nginx: sum(edge.runtime.frontPids()), workerd: sum([edge.runtime.pid]), node: nodeCpu() }) },
    nginx: { label: 'nginx ssl -> workerd alone', port: nginx.port, cpu: () => ({ nginx: sum(nginx.workerPids()), workerd: sum([plain.pid]) }) },
    ...(node ? { node: { label: 'Node ends TLS -> --edge (before)', port: node.port, cpu: () => ({ nginx: sum(edge.runtime.frontPids()), workerd: sum([edge.runtime.pid]), node: nodeCpu() }) } } : {}),
  };
  const measure = (peer, mode) => new Promise((resolve, reject) => {
    let cpu0;
    const child = fork(new URL(import.meta.url).pathname, ['--client', JSON.stringify({ port: peer.port, mode, seconds: SECONDS, concurrency: CONCURRENCY, caFile })]);
    child.on('message', (m) => {
      if (m.started) { cpu0 = peer.cpu(); return; }
      const cpu1 = peer.cpu();
      const parts = Object.fromEntries(Object.keys(cpu1).map((k) => [k, ((cpu1[k] - cpu0[k]) * 1000) / Math.max(1, m.ops)]));
      resolve({ ...m, rate: m.ops / SECONDS, cpuUs: Object.values(parts).reduce((a, b) => a + b, 0), parts });
    });
    child.once('error', reject);
  });
  const names = Object.keys(peers);
  try {
    log(`TLS edge benchmark: ${SECONDS} s per measure, ${CONCURRENCY} clients, best of ${ROUNDS} rounds; ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const mode of (args.modes ?? 'full,resumed,keepalive').split(',')) {
      const best = {};
      for (let r = 0; r < ROUNDS; r++) {
        for (const name of r % 2 ? [...names].reverse() : names) {
          const m = await measure(peers[name], mode);
          if (!best[name] || m.rate > best[name].rate) best[name] = m;
        }
      }
      const what = { full: 'new TLS handshakes/s', resumed: 'resumed TLS handshakes/s', keepalive: 'HTTPS keep-alive requests/s' }[mode];
      log(`${what}:`);
      for (const [name, peer] of Object.entries(peers)) {
        const b = best[name];
        const resumed = mode === 'resumed' ? `, ${((100 * b.reused) / Math.max(1, b.ops)).toFixed(0)}% resumed` : '';
        log(`  ${peer.label.padEnd(52)} ${b.rate.toFixed(0).padStart(7)}/s  server CPU ${b.cpuUs.toFixed(0)} µs each (${Object.entries(b.parts).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' + ')})${resumed}${b.errors ? `, ${b.errors} errors` : ''}`);
      }
      log(`  ratio Stratus/nginx ${(best.stratus.rate / best.nginx.rate).toFixed(2)}x (target >= 0.8x)${best.node ? `; before (Node TLS)/nginx ${(best.node.rate / best.nginx.rate).toFixed(2)}x` : ''}; load average ${os.loadavg()[0].toFixed(2)}`);
    }
  } finally {
    await nginx.close();
    await plain.close();
    await node?.close();
    await stratus.close();
    await edge.close();
    policies.close();
    await database.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** This process's CPU (ms): Node's side of the edge (its control service; the listener behind nginx for other names). */
function nodeCpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
