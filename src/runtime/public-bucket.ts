/**
 * Public reads of a bucket on its public hostnames (development hostname or custom domain), reached from the
 * supervisor worker like the origin proxy: GET and HEAD of one object, with Range (206, 416), the conditional
 * headers (304, 412), `ETag`, `Last-Modified` and the object's stored HTTP metadata; the body streams. The
 * root (a listing) is never public: 404, as production's public buckets answer. Other methods are 405 with
 * `Allow: GET, HEAD`. The bucket is the one the catalog named (`x-stratus-bucket`, set by the supervisor and never
 * taken from the client).
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../shared/logger.js';
import { AppError } from '../shared/errors.js';
import { errorPage } from '../edge/error-page.js';
import type { BucketResolver } from './store-service/server.js';

function answer(res: http.ServerResponse, status: number, headers: Record<string, string>, body = ''): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=UTF-8', 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

/** Serves one public read (headers from the supervisor). */
export async function servePublicObject(req: http.IncomingMessage, res: http.ServerResponse, bucketFor: BucketResolver, log: Logger): Promise<void> {
  const ray = String(req.headers['x-stratus-ray'] ?? '');
  const { accountId, bucket: name } = JSON.parse(String(req.headers['x-stratus-bucket'])) as { accountId: string; bucket: string };
  req.resume();
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return answer(res, 405, { allow: 'GET, HEAD', 'cf-ray': ray }, 'Method Not Allowed\n');
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  let key: string;
  try {
    key = decodeURIComponent(path.slice(1));
  } catch {
    return answer(res, 400, { 'cf-ray': ray }, 'Bad Request\n');
  }
  if (key === '') return answer(res, 404, { 'cf-ray': ray }, 'Not Found\n'); // listings are never public
  const headers = new Headers();
  for (const h of ['range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since']) {
    const v = req.headers[h];
    if (typeof v === 'string') headers.set(h, v);
  }
  const ranged = headers.has('range');
  let obj;
  try {
    const bucket = await bucketFor(accountId, name, {});
    obj = method === 'HEAD' && [...headers.keys()].length === 0 ? await bucket.head(key) : await bucket.get(key, { onlyIf: headers, ...(ranged ? { range: headers } : {}) });
  } catch (err) {
    if (err instanceof AppError && err.status === 416) return answer(res, 416, { 'cf-ray': ray }, 'Range Not Satisfiable\n');
    if (err instanceof AppError && err.status === 404) return answer(res, 404, { 'cf-ray': ray }, 'Not Found\n');
    log.warn({ bucket: name, reason: (err as Error).message }, 'public bucket read failed');
    const page = errorPage(500, 500, 'Internal server error', 'The object could not be read.', ray);
    return answer(res, 500, { 'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray }, page);
  }
  if (!obj) return answer(res, 404, { 'cf-ray': ray }, 'Not Found\n');
  const out = new Headers();
  obj.writeHttpMetadata(out);
  out.set('etag', obj.httpEtag);
  out.set('last-modified', obj.uploaded.toUTCString());
  out.set('accept-ranges', 'bytes');
  out.set('cf-ray', ray);
  const plain = Object.fromEntries(out);
  if (!('body' in obj) && [...headers.keys()].some((h) => h.startsWith('if-'))) {
    // A precondition failed: If-Match / If-Unmodified-Since is 412, If-None-Match / If-Modified-Since 304.
    res.writeHead(headers.has('if-match') || headers.has('if-unmodified-since') ? 412 : 304, plain);
    res.end();
    return;
  }
  if (ranged && pastTheEnd(headers.get('range')!, obj.size)) {
    await (obj as { body?: ReadableStream }).body?.cancel();
    return answer(res, 416, { 'content-range': `bytes */${obj.size}`, 'cf-ray': ray }, 'Range Not Satisfiable\n');
  }
  const { offset, length } = obj.range ?? { offset: 0, length: obj.size };
  plain['content-length'] = String(length);
  if (ranged && obj.range) plain['content-range'] = `bytes ${offset}-${offset + length - 1}/${obj.size}`;
  res.writeHead(ranged && obj.range ? 206 : 200, plain);
  const body = 'body' in obj ? (obj.body as ReadableStream<Uint8Array>) : undefined;
  if (method === 'HEAD' || !body) {
    await body?.cancel();
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(body as never), res);
}

/**
 * A single `bytes=FIRST-…` range starting at or past the end of a non-empty object: HTTP answers 416
 * (RFC 9110 §15.5.17); the binding's Headers form reads it as the whole object.
 */
function pastTheEnd(range: string, size: number): boolean {
  const m = /^bytes=(\d+)-(\d*)$/.exec(range.trim());
  return m !== null && size > 0 && Number(m[1]) >= size;
}
