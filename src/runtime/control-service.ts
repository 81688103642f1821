/**
 * The control service: what the supervisor worker asks Node, over loopback with the per-process secret.
 * - `GET /resolve` (`x-host`, `x-path`, `x-scheme`): the catalog's target for a request.
 * - `GET /route` (`x-host`, `x-path`, `x-scheme`): the runtime slot a request goes to (the front asks; `runtime-slot.ts`).
 * - `GET /ensure` (`x-version`): makes a generation serve that version; answers its internal port.
 * - `POST /access` (a JSON array of {@link EdgeAccessRecord}): requests the supervisor finished (access log, metrics).
 * - `POST /cpu` (`x-ray`, `x-ms`, `x-slot`): a request of a version with its own CPU limit starts in that slot (cpu-budgets.ts).
 * - any request with `x-stratus-origin`: the origin proxy (origin-proxy.ts).
 * - any request with `x-stratus-bucket`: a public read of a bucket (public-bucket.ts).
 */
import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { EdgeCatalog, EdgeTarget } from '../edge/types.js';
import type { Logger } from '../shared/logger.js';
import { STORE_SECRET_HEADER } from './workerd/config-text.js';
import { proxyToOrigin } from './origin-proxy.js';
import type { AddressPolicy } from '../edge/address-policy.js';
import { servePublicObject } from './public-bucket.js';
import type { BucketResolver } from './store-service/server.js';

/** What the control service needs from the runtime. */
export interface ControlHandlers {
  catalog: EdgeCatalog | undefined;
  /** Resolves the internal port of a generation serving `versionId`; null when the version does not exist. */
  ensure(versionId: string): Promise<number | null>;
  originPort: number;
  /** Port of origins reached over HTTPS (zone `ssl` full/strict; `--origin-tls-port`, default 443). */
  originTlsPort?: number;
  /** Where origins may be (`--origin-allow`; edge/address-policy.ts). */
  originPolicy: AddressPolicy;
  logger: Logger;
  /** Receives the records of finished edge requests. */
  access?: (records: EdgeAccessRecord[]) => void;
  /** The buckets public hostnames read from. */
  bucketFor?: BucketResolver;
  /** Requests in flight of versions with their own CPU limit, per runtime slot (cpu-budgets.ts). */
  cpuBudgets?: { begin(slot: number, ray: string, ms: number, generation: number): void; end(rays: string[]): void };
  /** The runtime slot serving a request for `host` + `path` (opened if it is an account's first). */
  route?(host: string, path: string, scheme: 'http' | 'https'): Promise<number>;
  /** Told of every catalog answer given to a supervisor (the nginx front learns which slot a hostname's scripts run in). */
  resolved?(host: string, target: EdgeTarget): void;
}

/** One request the supervisor finished, as it reports it (timing and bytes as of the response's headers). */
export interface EdgeAccessRecord {
  method: string;
  /** Path and query of the request (at most 200 characters; `stratus dev` prints it, the access log does not). */
  path?: string;
  /** `script:NAME`, `origin`, `bucket`, `unserved` or `unmatched`; from the front: `refused` (400, 413), `lost` (1102), `aborted` (499, nginx). */
  route: string;
  status: number;
  ms: number;
  bytesIn: number;
  /** The response's Content-Length (0 when it streams without one). */
  bytesOut: number;
  accountId?: string;
  /** The ray id the response carries. */
  requestId: string;
  remote?: string;
  /** Served on the fast path (nginx straight to the script version's socket, no supervisor). */
  fast?: boolean;
  /** The client's scheme (`https` over `--edge-tls`), when the front knows it. */
  scheme?: 'http' | 'https';
}

/** Largest access report accepted (bytes): 500 records are far below it. */
const ACCESS_REPORT_LIMIT = 4 * 1024 * 1024;

function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) { reject(new Error('access report too large')); req.destroy(); return; }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The records of an access report; fields of the wrong type are dropped, never trusted into a log line as objects. */
function accessRecords(text: string): EdgeAccessRecord[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('access report is not an array');
  const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : undefined);
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  return parsed.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null).map((r) => ({
    method: str(r.method) ?? 'GET', ...(str(r.path) !== undefined ? { path: str(r.path)! } : {}), route: str(r.route) ?? 'unmatched', status: num(r.status), ms: num(r.ms),
    bytesIn: num(r.bytesIn), bytesOut: num(r.bytesOut), requestId: str(r.requestId) ?? '',
    ...(str(r.accountId) !== undefined ? { accountId: str(r.accountId)! } : {}), ...(str(r.remote) !== undefined ? { remote: str(r.remote)! } : {}),
    ...(r.scheme === 'https' || r.scheme === 'http' ? { scheme: r.scheme } : {}),
  }));
}

/** The target when no catalog is wired: every hostname is unknown. */
export const NO_CATALOG_TARGET: EdgeTarget = { kind: 'unknown', status: 530, reason: 'This hostname is not served by this edge.' };

/** A running control service. */
export interface ControlService {
  address: string;
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Starts the control service on loopback. */
export async function startControlService(secretText: string, h: ControlHandlers): Promise<ControlService> {
  const secret = Buffer.from(secretText);
  const log = h.logger.child({ component: 'edge-control' });
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const given = Buffer.from(String(req.headers[STORE_SECRET_HEADER] ?? ''));
    if (given.length !== secret.length || !crypto.timingSafeEqual(given, secret)) {
      res.writeHead(403).end();
      return;
    }
    if (req.headers['x-stratus-bucket'] !== undefined && h.bucketFor) {
      servePublicObject(req, res, h.bucketFor, log).catch((err: unknown) => {
        log.warn({ reason: (err as Error).message }, 'public bucket read failed');
        res.destroy();
      });
      return;
    }
    if (req.headers['x-stratus-origin'] !== undefined) {
      proxyToOrigin(req, res, { port: h.originPort, tlsPort: h.originTlsPort ?? 443, policy: h.originPolicy }, log);
      return;
    }
    const run = async () => {
      if (req.url === '/route' && h.route) {
        const host = String(req.headers['x-host'] ?? '');
        const path = Buffer.from(String(req.headers['x-path'] ?? '/'), 'latin1').toString('utf8');
        json(res, 200, { slot: await h.route(host, path, req.headers['x-scheme'] === 'https' ? 'https' : 'http') });
      } else if (req.url === '/resolve') {
        const host = String(req.headers['x-host'] ?? '');
        const path = Buffer.from(String(req.headers['x-path'] ?? '/'), 'latin1').toString('utf8');
        const scheme = req.headers['x-scheme'] === 'https' ? 'https' : 'http';
        const target = h.catalog ? await h.catalog.resolve(host, path, scheme) : NO_CATALOG_TARGET;
        h.resolved?.(host, target);
        json(res, 200, target);
      } else if (req.url === '/access' && req.method === 'POST') {
        const records = accessRecords(await readBody(req, ACCESS_REPORT_LIMIT));
        h.cpuBudgets?.end(records.map((r) => r.requestId));
        h.access?.(records);
        json(res, 200, { recorded: records.length });
      } else if (req.url === '/cpu' && req.method === 'POST') {
        const ms = Number(req.headers['x-ms']);
        const slot = Number(req.headers['x-slot'] ?? 0);
        const generation = Number(req.headers['x-generation'] ?? 0);
        if (Number.isInteger(ms) && ms > 0 && Number.isInteger(slot) && Number.isInteger(generation)) h.cpuBudgets?.begin(slot, String(req.headers['x-ray'] ?? ''), ms, generation);
        json(res, 200, { ok: true });
      } else if (req.url === '/ensure') {
        const port = await h.ensure(String(req.headers['x-version'] ?? ''));
        if (port === null) json(res, 404, { error: 'no such version' });
        else json(res, 200, { port });
      } else {
        json(res, 404, { error: 'unknown path' });
      }
    };
    run().catch((err: unknown) => {
      log.warn({ path: req.url, reason: (err as Error).message }, 'edge control request failed');
      if (!res.headersSent) json(res, 500, { error: (err as Error).message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
