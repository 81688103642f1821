/**
 * The reverse proxy to a proxied hostname's origin (the record's A/AAAA/CNAME content on `--origin-port`, or over
 * HTTPS on `--origin-tls-port` when the zone's `ssl` is full (any certificate) or strict (valid for the Host)),
 * reached from the supervisor worker: workerd's own `fetch()` cannot send the client's Host header, which an
 * origin needs to pick its site. The request keeps its Host and the forwarding headers the supervisor set;
 * bodies stream both ways.
 *
 * The origin obeys the edge's outbound policy (`edge/address-policy.ts`, the one scripts' `fetch()` obeys, with
 * `--origin-allow` for private origins): a CNAME target is resolved here, every address it resolves to is checked,
 * and the connection goes to the checked address itself (never resolved again). A prohibited address is never
 * connected to: production's 1000 page (403, "DNS points to prohibited IP") for an A/AAAA content, 1002 (403) for a
 * name resolving to one. Redirects are the origin's answer, passed to the client, never followed here.
 *
 * Failures answer production's pages: 521 (refused), 522 (connect timeout), 530/1016 (origin name does not
 * resolve), 524 (no answer in time), 502 (anything else); over HTTPS 525 (handshake failed) and 526 (certificate
 * not valid, strict).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Logger } from '../shared/logger.js';
import { errorPage } from '../edge/error-page.js';
import type { AddressPolicy } from '../edge/address-policy.js';

const CONNECT_TIMEOUT_MS = 15_000;
const ANSWER_TIMEOUT_MS = 100_000;
/** Node's codes of a certificate that does not verify (strict mode). */
const CERT_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/;

function fail(res: http.ServerResponse, status: number, code: number, title: string, detail: string, ray: string): void {
  if (res.headersSent) { res.destroy(); return; }
  const body = errorPage(status, code, title, detail, ray);
  res.writeHead(status, { 'content-type': 'text/html; charset=UTF-8', 'content-length': Buffer.byteLength(body), 'cf-ray': ray });
  res.end(body);
}

/** Where the origin leg goes. */
export interface OriginTarget {
  /** `--origin-port` */
  port: number;
  /** `--origin-tls-port` */
  tlsPort: number;
  /** The outbound policy (`--origin-allow`). */
  policy: AddressPolicy;
}

/** The address the origin leg connects to, or why it connects nowhere. */
export type OriginAddress = { address: string; family: 4 | 6 } | { prohibited: 1000 | 1002; address: string } | { failed: string };

/** Resolves a record's content (an address, or a CNAME target) to the one address to connect to, checked by the policy. */
export async function originAddress(origin: string, policy: AddressPolicy): Promise<OriginAddress> {
  const literal = origin.replace(/^\[|\]$/g, '');
  const family = net.isIP(literal);
  if (family !== 0) return policy.permits(literal) ? { address: literal, family: family as 4 | 6 } : { prohibited: 1000, address: literal };
  let found: dns.LookupAddress[];
  try {
    found = await dns.promises.lookup(origin.replace(/\.$/, ''), { all: true, verbatim: true });
  } catch (err) {
    return { failed: (err as NodeJS.ErrnoException).code ?? 'ENOTFOUND' };
  }
  const refused = found.find((a) => !policy.permits(a.address));
  if (refused) return { prohibited: 1002, address: refused.address };
  const first = found[0];
  return first ? { address: first.address, family: first.family === 6 ? 6 : 4 } : { failed: 'ENOTFOUND' };
}

/** Proxies one request (headers from the supervisor) to its origin. */
export function proxyToOrigin(req: http.IncomingMessage, res: http.ServerResponse, target: OriginTarget, log: Logger): void {
  const origin = String(req.headers['x-stratus-origin']);
  const ray = String(req.headers['x-stratus-ray'] ?? '');
  let aborted = false;
  req.on('aborted', () => { aborted = true; });
  originAddress(origin, target.policy).then((to) => {
    if (aborted) return;
    if ('prohibited' in to) {
      log.info({ origin, address: to.address, code: to.prohibited }, 'origin refused: prohibited address');
      if (to.prohibited === 1000) fail(res, 403, 1000, 'DNS points to prohibited IP', 'The hostname\'s DNS record points to an address this edge does not connect to.', ray);
      else fail(res, 403, 1002, 'DNS points to Prohibited IP', 'The origin\'s hostname resolves to an address this edge does not connect to.', ray);
      req.resume();
    } else if ('failed' in to) {
      log.info({ origin, code: to.failed }, 'origin request failed');
      fail(res, 530, 1016, 'Origin DNS error', 'The origin\'s hostname does not resolve.', ray);
      req.resume();
    } else {
      forward(req, res, target, to, origin, ray, log);
    }
  }, (err: unknown) => {
    log.warn({ origin, reason: (err as Error).message }, 'origin resolution failed');
    fail(res, 502, 502, 'Bad gateway', 'The origin could not be reached.', ray);
  });
}

/** Sends the request to the checked address and streams the answer back. */
function forward(req: http.IncomingMessage, res: http.ServerResponse, target: OriginTarget, to: { address: string; family: 4 | 6 }, origin: string, ray: string, log: Logger): void {
  const ssl = req.headers['x-stratus-origin-ssl'];
  const headers = { ...req.headers };
  for (const h of ['x-stratus-origin', 'x-stratus-origin-ssl', 'x-stratus-ray', 'x-stratus-secret', 'connection', 'keep-alive']) delete headers[h];
  let connected = false;
  const secure = ssl === 'full' || ssl === 'strict';
  const serverName = String(req.headers.host ?? '').replace(/:\d+$/, '');
  // the certificate is checked against the Host (else the origin's name); the connection goes to the checked address
  const originName = net.isIP(origin.replace(/^\[|\]$/g, '')) === 0 ? origin.replace(/\.$/, '') : undefined;
  const sni = serverName && net.isIP(serverName) === 0 ? serverName : originName;
  const options: https.RequestOptions = { host: to.address, family: to.family, port: secure ? target.tlsPort : target.port, method: req.method, path: req.url, headers, agent: false, timeout: CONNECT_TIMEOUT_MS };
  if (secure) Object.assign(options, { rejectUnauthorized: ssl === 'strict', ...(sni ? { servername: sni } : {}) });
  const up = (secure ? https : http).request(options, (answer) => {
    answer.headers['cf-ray'] = ray;
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  up.on('socket', (socket) => socket.once(secure ? 'secureConnect' : 'connect', () => { connected = true; up.setTimeout(ANSWER_TIMEOUT_MS); }));
  up.on('timeout', () => up.destroy(Object.assign(new Error('timeout'), { code: connected ? 'ANSWER_TIMEOUT' : 'CONNECT_TIMEOUT' })));
  up.on('error', (err: NodeJS.ErrnoException) => {
    log.info({ origin, code: err.code }, 'origin request failed');
    if (secure && CERT_ERRORS.test(err.code ?? '')) fail(res, 526, 526, 'Invalid SSL certificate', 'The origin web server\'s certificate is not valid for this hostname.', ray);
    else if (secure && (err.code === 'EPROTO' || (err.code ?? '').startsWith('ERR_SSL'))) fail(res, 525, 525, 'SSL handshake failed', 'The origin web server did not complete a TLS handshake.', ray);
    else if (err.code === 'ECONNREFUSED') fail(res, 521, 521, 'Web server is down', 'The origin web server refused the connection.', ray);
    else if (err.code === 'CONNECT_TIMEOUT' || err.code === 'ETIMEDOUT') fail(res, 522, 522, 'Connection timed out', 'The origin web server did not accept the connection in time.', ray);
    else if (err.code === 'ANSWER_TIMEOUT') fail(res, 524, 524, 'A timeout occurred', 'The origin web server did not answer in time.', ray);
    else fail(res, 502, 502, 'Bad gateway', 'The origin web server answered with something that is not HTTP.', ray);
  });
  req.pipe(up);
  req.on('aborted', () => up.destroy());
}
