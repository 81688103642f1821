/**
 * The HTTPS edge listener in Node (`--edge-tls HOST:PORT` where nginx does not end TLS; behind nginx, the names
 * nginx leaves to it, on a Unix socket with the PROXY protocol: `edge-tls.ts`): it ends TLS
 * in Node and forwards each request as plain HTTP to the `--edge` socket (workerd's supervisor), naming the
 * client's address and the scheme in headers vouched for by the runtime's secret, so scripts, origins and
 * route patterns see `https` as production's do.
 *
 * Certificates by server name (SNI): the `CertificateSource`'s (edge/certificates.ts: universal, advanced and
 * custom certificates kept by src/certs/) through an SNICallback, one secure context per certificate and TLS floor,
 * made on first use and dropped when the source changes; a name without one gets the `--tls-cert` certificate
 * when given (the fallback), else the handshake fails (no certificate to present: a handshake_failure alert).
 *
 * Zone settings it acts on (`edge/zone-policy.ts`): `min_tls_version` and `tls_1_3` by the ClientHello's server
 * name (a client offering only versions outside the zone's range fails the handshake with a protocol_version
 * alert, as production's edge answers; `tls_1_3` off caps the zone at TLS 1.2, `zrt` is on without 0-RTT),
 * `security_header` (HSTS, nosniff) added to every HTTPS answer of the zone's hostnames, and
 * `automatic_https_rewrites` (edge/https-rewrites.ts) on the zone's HTML answers.
 * Redirects (`always_use_https`, `ssl` off) are the catalog's (`edge/policy-catalog.ts`).
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../shared/logger.js';
import type { SecureContextTarget, TlsMaterial } from '../shared/tls-files.js';
import { clientHelloComplete, clientHelloServerName } from '../edge/client-hello.js';
import { tlsAtLeast, tlsRange, type ZonePolicies, type ZonePolicy } from '../edge/zone-policy.js';
import { errorPage } from '../edge/error-page.js';
import { HttpsRewriter, rewritable } from '../edge/https-rewrites.js';
import type { CertificateSource, ServedCertificate } from '../edge/certificates.js';

/** Options of {@link startHttpsEdge}. */
export interface HttpsEdgeOptions {
  /**
   * The `--edge-tls` address; or, when nginx owns it (`front/tls-config.ts`), the Unix socket nginx hands this
   * listener the names it does not serve on, each connection led by a PROXY protocol v1 line naming the client.
   */
  listen: { host: string; port: number } | { path: string };
  /** The fallback certificate (`--tls-cert`) for names the source has none for. */
  tls: TlsMaterial | undefined;
  /** Certificates by server name. */
  certificates: CertificateSource | undefined;
  policies: ZonePolicies;
  /** The plain edge socket requests are forwarded to, and the secret that vouches for the front's headers. */
  edge: { host: string; port: number; secret: string };
  logger: Logger;
}

/** A running HTTPS edge listener. */
export interface HttpsEdge {
  /** `https://host:port` */
  url: string;
  port: number;
  /** Takes a new certificate for new connections (SIGHUP). */
  tls: SecureContextTarget;
  close(): Promise<void>;
}

/** The version range of a zone's handshakes: its floor, and TLS 1.3 or 1.2 as the ceiling. */
type Range = `${ZonePolicy['minTls']}/${'TLSv1.2' | 'TLSv1.3'}`;

/** The {@link tlsRange} of a zone's policy as a key. */
function rangeOf(policy: ZonePolicy | undefined): Range {
  const { min, max } = tlsRange(policy);
  return `${min}/${max}`;
}
const HELLO_LIMIT = 16 * 1024 + 5;
const HELLO_TIMEOUT_MS = 10_000;
const FRONT_HEADERS = ['x-stratus-front', 'x-stratus-client-ip', 'x-stratus-scheme'];
/** A PROXY protocol v1 line is at most 107 bytes, CRLF included. */
const PROXY_LIMIT = 107;

/** The client's address of a PROXY protocol v1 line (`PROXY TCP4 client server cport sport`); undefined for `UNKNOWN`. */
export function proxyClient(line: string): string | undefined {
  const m = /^PROXY (?:TCP4|TCP6) (\S+) \S+ \d+ \d+$/.exec(line);
  return m ? m[1] : undefined;
}

/** A certificate's secure contexts by version range, each made on first use. */
interface Contexts { get(range: Range): tls.SecureContext }

function contexts(material: { cert: Buffer | string; key: Buffer | string } | undefined): Contexts {
  const made = new Map<Range, tls.SecureContext>();
  return {
    get(range) {
      let c = made.get(range);
      if (!c) {
        const [minVersion, maxVersion] = range.split('/') as [tls.SecureVersion, tls.SecureVersion];
        c = tls.createSecureContext({ ...(material ? { cert: material.cert, key: material.key } : {}), minVersion, maxVersion });
        made.set(range, c);
      }
      return c;
    },
  };
}

/** Starts the HTTPS edge listener. */
export async function startHttpsEdge(opts: HttpsEdgeOptions): Promise<HttpsEdge> {
  const log = opts.logger.child({ component: 'edge-tls' });
  let ctx = contexts(opts.tls);
  // secure contexts of the source's certificates, by certificate and floor; emptied when the source changes
  let served = new Map<ServedCertificate, Contexts>();
  const unsubscribe = opts.certificates?.onChange(() => { served = new Map(); });
  const contextFor = (name: string, range: Range): tls.SecureContext => {
    const cert = opts.certificates?.lookup(name);
    if (!cert) return ctx.get(range);
    let byFloor = served.get(cert);
    if (!byFloor) { byFloor = contexts({ cert: cert.certificatePem, key: cert.privateKeyPem }); served.set(cert, byFloor); }
    return byFloor.get(range);
  };
  /** Whether the edge serves `host` over HTTPS: an active zone's with `ssl` not off, and a certificate to present. */
  const servedOverHttps = async (host: string): Promise<boolean> => {
    const p = await opts.policies.forHost(host);
    return p !== undefined && p.ssl !== 'off' && ((opts.certificates?.lookup(host) ?? null) !== null || opts.tls !== undefined);
  };
  // A request with a body gets a connection of its own: a replaced workerd generation closes its idle
  // connections, and a body sent on one of those could not be sent again. A request without one (GET, HEAD,
  // OPTIONS) reuses kept-alive connections, and is sent once more on a fresh one when a reused connection
  // fails before any answer (the peer had closed it idle: nothing of the request was served).
  const agent = new http.Agent({ keepAlive: false, maxSockets: 1024 });
  const keptAlive = new http.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 256 });
  const edgeHost = opts.edge.host === '0.0.0.0' ? '127.0.0.1' : opts.edge.host === '::' ? '::1' : opts.edge.host;
  const sockets = new Set<net.Socket>();
  /** The client's address of each TLS socket (the PROXY line's, behind nginx). */
  const clients = new WeakMap<net.Socket, string>();
  const behindNginx = 'path' in opts.listen;

  const app = http.createServer((req, res) => void forward(req, res));
  async function forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const host = String(req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    const policy = host ? await opts.policies.forHost(host).catch(() => undefined) : undefined;
    const headers: http.OutgoingHttpHeaders = { ...req.headers };
    for (const h of FRONT_HEADERS) delete headers[h];
    headers['x-stratus-front'] = opts.edge.secret;
    headers['x-stratus-client-ip'] = (clients.get(req.socket) ?? req.socket.remoteAddress ?? '0.0.0.0').replace(/^::ffff:/, '');
    headers['x-stratus-scheme'] = 'https';
    const bodyless = (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') && req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    send(bodyless ? keptAlive : agent, bodyless);
    function send(via: http.Agent, retry: boolean): void {
      const up = http.request({ host: edgeHost, port: opts.edge.port, method: req.method, path: req.url, headers, agent: via }, (answer) => {
        const out = { ...answer.headers };
        if (policy && policy.ssl !== 'off') Object.assign(out, policy.httpsHeaders);
        const rewrite = policy?.httpsRewrites === true && policy.ssl !== 'off' && req.method !== 'HEAD' && rewritable(answer.headers);
        if (rewrite) delete out['content-length']; // the length changes: chunked
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
        answer.on('error', () => res.destroy());
        if (!rewrite) { answer.pipe(res); return; }
        const rewriter = new HttpsRewriter(servedOverHttps);
        rewriter.on('error', () => res.destroy());
        answer.pipe(rewriter).pipe(res);
      });
      up.on('error', (err) => {
        if (retry && up.reusedSocket && !res.headersSent && !req.destroyed) { send(agent, false); return; }
        log.warn({ err: err.message }, 'edge socket did not answer');
        if (res.headersSent) { res.destroy(); return; }
        const body = errorPage(502, 502, 'Bad gateway', 'The edge could not serve this request.', '');
        res.writeHead(502, { 'content-type': 'text/html; charset=UTF-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
      if (bodyless) { req.resume(); up.end(); } else req.pipe(up);
      req.on('aborted', () => up.destroy());
    }
  }

  /** Peeks at the ClientHello for its server name, then starts TLS with the zone's lowest version. */
  function accept(socket: net.Socket): void {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buf = Buffer.alloc(0);
    let client: string | undefined;
    let proxied = !behindNginx;
    const timer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      if (!proxied) {
        const end = buf.indexOf('\r\n');
        if (end < 0) { if (buf.length > PROXY_LIMIT) socket.destroy(); return; }
        const line = buf.subarray(0, end).toString('latin1');
        if (!line.startsWith('PROXY ')) { socket.destroy(); return; }
        client = proxyClient(line);
        buf = buf.subarray(end + 2);
        proxied = true;
      }
      if (!clientHelloComplete(buf) && buf.length < HELLO_LIMIT) return;
      socket.off('data', onData);
      socket.pause();
      clearTimeout(timer);
      void start(socket, buf, client);
    };
    socket.on('data', onData);
  }

  async function start(socket: net.Socket, hello: Buffer, client: string | undefined): Promise<void> {
    const name = clientHelloServerName(hello);
    const policy = name ? await opts.policies.forHost(name).catch(() => undefined) : undefined;
    if (socket.destroyed) return;
    socket.unshift(hello);
    const range = rangeOf(policy);
    const secure = new tls.TLSSocket(socket, {
      isServer: true, secureContext: ctx.get(range), ALPNProtocols: ['http/1.1'],
      SNICallback: (servername, done) => { try { done(null, contextFor(servername, range)); } catch (err) { done(err as Error); } },
    });
    secure.on('error', () => secure.destroy());
    if (client !== undefined) clients.set(secure, client);
    secure.once('secure', () => {
      // the context's floor already refused older clients; this guards a context that allowed one anyway
      if (policy && (!tlsAtLeast(secure.getProtocol(), policy.minTls) || (range.endsWith('TLSv1.2') && secure.getProtocol() === 'TLSv1.3'))) { secure.destroy(); return; }
      app.emit('connection', secure);
    });
  }

  const server = net.createServer(accept);
  const listen = opts.listen;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in listen) fs.rmSync(listen.path, { force: true });
    const done = (): void => { server.off('error', reject); resolve(); };
    if ('path' in listen) server.listen(listen.path, done); else server.listen(listen.port, listen.host, done);
  });
  if ('path' in listen) {
    log.info({ socket: listen.path }, 'HTTPS edge listening behind nginx (names without a certificate nginx serves)');
  }
  const port = 'path' in listen ? 0 : (server.address() as net.AddressInfo).port;
  const shown = 'path' in listen ? 'localhost' : listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  if (!('path' in listen)) log.info({ port }, 'HTTPS edge listening');
  return {
    url: `https://${shown}:${port}`,
    port,
    tls: { setSecureContext: (o) => { ctx = contexts({ cert: o.cert as Buffer, key: o.key as Buffer }); } },
    close: () => new Promise<void>((resolve) => {
      unsubscribe?.();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
      app.closeAllConnections();
      agent.destroy();
      keptAlive.destroy();
    }),
  };
}
