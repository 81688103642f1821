/**
 * The peers bench/edge.mjs measures Stratus's edge against, each serving the same hello-world script:
 * - workerd alone (one process, the script bound to a TCP socket);
 * - the two-process floor: a workerd that runs no JavaScript at all (its socket bound straight to an external
 *   service) forwarding over a Unix socket to a second workerd running the script. Any shape that keeps client
 *   connections in a process other than the one running scripts pays at least this;
 * - `wrangler dev` in local mode (the devDependency; Miniflare's entry worker in workerd).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { procStatFields } from '../../dist/runtime/proc-stat.js';

const require = createRequire(import.meta.url);
const workerdBin = require('workerd').default;
const WRANGLER = path.resolve(import.meta.dirname, '../../node_modules/wrangler/bin/wrangler.js');

/** Starts workerd on `config` (a capnp text whose files are in `dir`); resolves the port of its first TCP socket. */
async function startWorkerd(dir, config) {
  fs.writeFileSync(path.join(dir, 'config.capnp'), `using Workerd = import "/workerd/workerd.capnp";\n${config}`);
  const child = spawn(workerdBin, ['serve', path.join(dir, 'config.capnp'), '--control-fd=3'], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  process.on('exit', () => child.kill()); // never left running after a failed run
  const port = await new Promise((resolve, reject) => {
    let text = '';
    child.stdio[3].on('data', (d) => {
      text += d;
      for (const line of text.split('\n')) {
        try { const e = JSON.parse(line); if (e.event === 'listen' && typeof e.port === 'number') resolve(e.port); } catch { /* partial line */ }
      }
    });
    child.once('exit', (code) => reject(new Error(`workerd exited (${code}) before listening`)));
  });
  return { port, pid: child.pid, close: () => new Promise((r) => { if (child.exitCode !== null) r(); else { child.once('exit', r); child.kill(); } }) };
}

const helloService = (file) => `(name = "hello", worker = (modules = [(name = "hello.js", esModule = embed "${file}")], compatibilityDate = "2025-01-01"))`;

/** workerd alone: the script on a TCP socket (`v8Flags`: V8 flags of its config, none by default). */
export async function startPlainWorkerd(root, source, { v8Flags = [] } = {}) {
  const dir = fs.mkdtempSync(path.join(root, 'plain-'));
  fs.writeFileSync(path.join(dir, 'hello.js'), source);
  return startWorkerd(dir, `const config :Workerd.Config = (
  services = [${helloService('hello.js')}],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "hello")],
  v8Flags = [${v8Flags.map((f) => JSON.stringify(f)).join(', ')}],
);`);
}

/** The two-process floor: a JavaScript-free workerd proxy in front of the script's workerd, over a Unix socket. */
export async function startTwoProcessFloor(root, source) {
  const dir = fs.mkdtempSync(path.join(root, 'floor-'));
  fs.writeFileSync(path.join(dir, 'hello.js'), source);
  const sock = path.join(dir, 'script.sock');
  const back = await startWorkerd(dir, `const config :Workerd.Config = (
  services = [${helloService('hello.js')}],
  sockets = [(name = "script", address = "unix:${sock}", http = (cfBlobHeader = "x-cf"), service = "hello"),
             (name = "internal", address = "127.0.0.1:0", http = (), service = "hello")],
);`);
  const frontDir = fs.mkdtempSync(path.join(root, 'floor-front-'));
  const front = await startWorkerd(frontDir, `const config :Workerd.Config = (
  services = [(name = "script", external = (address = "unix:${sock}", http = (cfBlobHeader = "x-cf")))],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "script")],
);`);
  return { port: front.port, pids: [front.pid, back.pid], close: async () => { await front.close(); await back.close(); } };
}

/** `wrangler dev --local` on a project holding the script; resolves once it answers. */
export async function startWranglerDev(root, source, port) {
  const dir = fs.mkdtempSync(path.join(root, 'wrangler-'));
  fs.writeFileSync(path.join(dir, 'index.js'), source);
  fs.writeFileSync(path.join(dir, 'wrangler.toml'), 'name = "hello"\nmain = "index.js"\ncompatibility_date = "2025-01-01"\n');
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' };
  // Its own process group, so wrangler's workerd and esbuild children stop with it.
  const child = spawn(process.execPath, [WRANGLER, 'dev', '--local', '--ip', '127.0.0.1', '--port', String(port)], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const stopGroup = () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ } };
  process.on('exit', stopGroup);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  await new Promise((resolve, reject) => {
    const timer = setInterval(() => { if (/Ready on http/.test(out)) { clearInterval(timer); resolve(); } }, 100);
    child.once('exit', (code) => { clearInterval(timer); reject(new Error(`wrangler dev exited (${code}):\n${out.slice(-2000)}`)); });
  });
  return {
    port,
    close: () => new Promise((r) => { if (child.exitCode !== null) r(); else { child.once('exit', r); stopGroup(); } }),
  };
}

/** Debian's nginx binary, when installed. */
export const NGINX_BINARY = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));

/**
 * nginx in front of `upstream` (`host:port` or `unix:/path`, or several: `least_conn` over them), as a self-hoster
 * runs workerd: one worker process, keep-alive connections to the upstream; resolves its port once it accepts. With `tls` ({ cert, key } files)
 * it ends TLS (1.2 and 1.3, a shared session cache and tickets: resumption as a self-hoster configures it).
 * With `upstream` null it answers every request itself with a constant "hello world" (no upstream, no script: the
 * least one HTTP hop costs on this machine, the open loop's machine floor).
 */
export async function startNginx(root, upstream, { workers = 1, tls } = {}) {
  if (!NGINX_BINARY) throw new Error('nginx is not installed');
  const dir = fs.mkdtempSync(path.join(root, 'nginx-'));
  const port = await new Promise((resolve) => {
    const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `worker_processes ${workers};
daemon off;
pid ${dir}/nginx.pid;
error_log stderr error;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  ${upstream === null ? '' : `upstream backend { ${Array.isArray(upstream) ? `least_conn; ${upstream.map((u) => `server ${u};`).join(' ')}` : `server ${upstream};`} keepalive 64; }`}
  server {
    listen 127.0.0.1:${port}${tls ? ' ssl' : ''};
    ${tls ? `ssl_certificate ${tls.cert}; ssl_certificate_key ${tls.key}; ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:SSL:10m; ssl_session_tickets on;` : ''}
    location / { ${upstream === null ? 'return 200 "hello world";' : 'proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; proxy_buffering off;'} }
  }
}
`);
  const child = spawn(NGINX_BINARY, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr'], { stdio: ['ignore', 'ignore', 'inherit'] });
  process.on('exit', () => child.kill());
  for (let i = 0; ; i++) {
    const ok = await new Promise((resolve) => {
      const s = require('node:net').connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); }).on('error', () => resolve(false));
    });
    if (ok) break;
    if (child.exitCode !== null || i > 100) throw new Error('nginx did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const workerPids = () => {
    const out = [];
    for (const p of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      if (procStatFields(p)?.[1] === String(child.pid)) out.push(Number(p));
    }
    return out;
  };
  return { port, pid: child.pid, workerPids, close: () => new Promise((r) => { if (child.exitCode !== null) r(); else { child.once('exit', r); child.kill('SIGQUIT'); } }) };
}

/** workerd alone running `source` with a bucket binding `B` served by Stratus's store service (`store` address, its secret). */
export async function startBucketWorkerd(root, source, store, secret, binding) {
  const dir = fs.mkdtempSync(path.join(root, 'bucket-'));
  fs.writeFileSync(path.join(dir, 'hello.js'), source);
  const quote = (s) => JSON.stringify(s);
  return startWorkerd(dir, `const config :Workerd.Config = (
  services = [(name = "hello", worker = (modules = [(name = "hello.js", esModule = embed "hello.js")], compatibilityDate = "2025-01-01", bindings = [(name = "B", r2Bucket = "store")])),
              (name = "store", external = (address = ${quote(store)}, http = (injectRequestHeaders = [(name = "x-stratus-secret", value = ${quote(secret)}), (name = "x-stratus-binding", value = ${quote(JSON.stringify(binding))})])))],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "hello")],
);`);
}

/**
 * workerd alone running `source` behind Stratus's limits entry modules (`limits-shim.ts`: subrequest counters,
 * the pass-through guard), as a script version's own socket serves it without the supervisor worker (the fast
 * path); `v8Flags` as the edge's workerd processes run with.
 */
export async function startShimmedWorkerd(root, source, shim, { v8Flags = [] } = {}) {
  const dir = fs.mkdtempSync(path.join(root, 'shim-'));
  fs.writeFileSync(path.join(dir, 'index.js'), source);
  shim.modules.forEach((m, i) => fs.writeFileSync(path.join(dir, `m${i}`), m.source));
  const modules = [...shim.modules.map((m, i) => `(name = ${JSON.stringify(m.name)}, ${m.kind} = embed "m${i}")`), '(name = "index.js", esModule = embed "index.js")'];
  return startWorkerd(dir, `const config :Workerd.Config = (
  services = [(name = "hello", worker = (modules = [${modules.join(', ')}], compatibilityDate = "2025-01-01", compatibilityFlags = [${shim.flags.map((f) => JSON.stringify(f)).join(', ')}]))],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "hello")],
  v8Flags = [${v8Flags.map((f) => JSON.stringify(f)).join(', ')}],
);`);
}
