/**
 * The reverse proxy to a proxied hostname's origin (the record's A/AAAA/CNAME content on `--origin-port`, or over
 * HTTPS on `--origin-tls-port` when the zone's `ssl` is full (any certificate) or strict (valid for the Host)),
 * reached from the supervisor worker: workerd's own `fetch()` cannot send the client's Host header, which an
 * origin needs to pick its site. The request keeps its Host and the forwarding headers the supervisor set;
 * bodies stream both ways. Failures answer production's pages: 521 (refused), 522 (connect timeout),
 * 530/1016 (origin name does not resolve), 524 (no answer in time), 502 (anything else); over HTTPS 525 (handshake failed) and 526 (certificate not valid, strict).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Logger } from '../shared/logger.js';
import { errorPage } from '../edge/error-page.js';

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

/** Proxies one request (headers from the supervisor) to its origin. */
export function proxyToOrigin(req: http.IncomingMessage, res: http.ServerResponse, originPort: number, log: Logger, originTlsPort = 443): void {
  const origin = String(req.headers['x-stratus-origin']);
  const ray = String(req.headers['x-stratus-ray'] ?? '');
  const ssl = req.headers['x-stratus-origin-ssl'];
  const headers = { ...req.headers };
  for (const h of ['x-stratus-origin', 'x-stratus-origin-ssl', 'x-stratus-ray', 'x-stratus-secret', 'connection', 'keep-alive']) delete headers[h];
  const host = net.isIPv6(origin) ? origin : origin.replace(/\.$/, '');
  let connected = false;
  const secure = ssl === 'full' || ssl === 'strict';
  const serverName = String(req.headers.host ?? '').replace(/:\d+$/, '');
  const options: https.RequestOptions = { host, port: secure ? originTlsPort : originPort, method: req.method, path: req.url, headers, agent: false, timeout: CONNECT_TIMEOUT_MS };
  if (secure) Object.assign(options, { rejectUnauthorized: ssl === 'strict', ...(serverName && net.isIP(serverName) === 0 ? { servername: serverName } : {}) });
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
    else if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') fail(res, 530, 1016, 'Origin DNS error', 'The origin\'s hostname does not resolve.', ray);
    else if (err.code === 'ANSWER_TIMEOUT') fail(res, 524, 524, 'A timeout occurred', 'The origin web server did not answer in time.', ray);
    else fail(res, 502, 502, 'Bad gateway', 'The origin web server answered with something that is not HTTP.', ray);
  });
  req.pipe(up);
  req.on('aborted', () => up.destroy());
}
