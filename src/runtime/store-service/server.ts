/**
 * The store service: workerd's bucket protocol (../shared/reference/workerd-bucket-protocol.md) over HTTP on
 * loopback, answered from Stratus's own store, so scripts in workerd get the platform's own binding objects
 * with exactly the semantics `store/` gives everywhere else.
 *
 * Invariants:
 * - Every request carries the per-process secret (injected by workerd, never seen by scripts); without it the
 *   answer is 403 and nothing is read. Headers are never logged: SSE-C keys travel in them.
 * - Which bucket a request is for comes from the binding header workerd injects per binding service; the
 *   bucket itself from the injected `bucketFor(accountId, bucketName)`, asked at most once a second per binding
 *   (the bucket's settings, such as its default storage class, are read then; whether it exists is checked by
 *   every operation).
 * - A put streams its value into the store; a client that goes away mid-body errors the stream, so the put
 *   never commits.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { BucketOptions, StoreBucket } from '../../store/types.js';
import { READ_RECORD, type RecordReads } from '../../store/bucket.js';
import type { OpenedBody } from '../../store/body-io.js';
import type { Logger } from '../../shared/logger.js';
import { STORE_BINDING_HEADER, STORE_SECRET_HEADER } from '../workerd/config-text.js';
import { SMALL_VALUE, splitBody } from './body.js';
import * as dec from './decode.js';
import { createWireServer, type WireRequest, type WireResponse } from './wire.js';
import { errorHeader, listJson, NO_SUCH_KEY, objectJson, PRECONDITION_FAILED, protocolError, recordJson, type ProtocolError } from './encode.js';

/** Resolves the bucket of a binding: the account that owns the script and the bucket name it binds, with the bucket's settings. */
export type BucketResolver = (accountId: string, bucketName: string, options: BucketOptions) => StoreBucket | Promise<StoreBucket>;

/** A bucket as the service uses it: the binding's methods and the record reads of `head` and `get`. */
type ServedBucket = StoreBucket & RecordReads;

/** A running store service. */
export interface StoreService {
  /** `127.0.0.1:port`, or `unix:<path>` when started on a Unix socket (workerd's external-service address form). */
  address: string;
  close(): Promise<void>;
}

interface Binding {
  accountId: string;
  bucket: string;
  compatibilityDate?: string;
  compatibilityFlags?: string[];
}

/** A binding as the service keeps it: its header parsed, and its bucket until `until` (ms). */
interface KnownBinding { binding: Binding; bucket?: ServedBucket; until: number }

/** An answer: its status, and a JSON body, an error, or an object's JSON with its opened body (released by `send`). */
type Answer = { status: number; json?: unknown; error?: ProtocolError; meta?: unknown; body?: OpenedBody; bodyLength?: number };

/** A `head` or `get` answered from the record read ({@link READ_RECORD}): no script-facing value is built only to be encoded. */
async function readAnswer(bucket: ServedBucket, action: 'head' | 'get', req: any): Promise<Answer> {
  const read = await bucket[READ_RECORD](action, req.object, action === 'get' ? dec.getOptions(req) : undefined);
  if (!read) return { status: 404, error: NO_SUCH_KEY };
  try {
    const meta = recordJson(read.record, read.range);
    if (action === 'get' && !read.body) return { status: 412, error: PRECONDITION_FAILED, meta };
    return read.body ? { status: 200, meta, body: read.body, bodyLength: read.range.length } : { status: 200, meta };
  } catch (err) {
    await read.body?.release();
    throw err;
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any */
async function runGet(bucket: ServedBucket, req: any): Promise<Answer> {
  switch (req.method) {
    case 'head':
    case 'get':
      return readAnswer(bucket, req.method, req);
    case 'list': {
      const include = Array.isArray(req.include) ? req.include.map((i: number) => (i === 0 ? 'httpMetadata' : 'customMetadata')) : undefined;
      // workerd sends the limit as an unsigned 32-bit number: -2 arrives as 4294967294.
      const page = await bucket.list({
        ...(req.limit !== undefined ? { limit: req.limit | 0 } : {}), ...(req.prefix !== undefined ? { prefix: req.prefix } : {}),
        ...(req.cursor !== undefined ? { cursor: req.cursor } : {}), ...(req.delimiter !== undefined ? { delimiter: req.delimiter } : {}),
        ...(req.startAfter !== undefined ? { startAfter: req.startAfter } : {}), ...(include ? { include } : {}),
      });
      return { status: 200, meta: listJson(page) };
    }
    default:
      return { status: 400, error: { status: 400, v4code: 10029, message: 'Metadata missing or invalid' } };
  }
}

async function runPut(bucket: StoreBucket, req: any, value: ReadableStream<Uint8Array> | Uint8Array): Promise<Answer> {
  switch (req.method) {
    case 'put': {
      const o = await bucket.put(req.object, value, dec.putOptions(req));
      return o ? { status: 200, json: objectJson(o) } : { status: 412, error: PRECONDITION_FAILED };
    }
    case 'delete':
      await bucket.delete(req.objects ?? req.object);
      return { status: 200 };
    case 'createMultipartUpload': {
      const { onlyIf: _ignored, md5: _md5, ...opts } = dec.putOptions(req);
      const u = await bucket.createMultipartUpload(req.object, opts);
      return { status: 200, json: { uploadId: u.uploadId } };
    }
    case 'uploadPart': {
      const key = dec.ssecKey(req);
      const part = await bucket.resumeMultipartUpload(req.object, req.uploadId).uploadPart(req.partNumber, value, key !== undefined ? { ssecKey: key } : {});
      return { status: 200, json: { etag: part.etag } };
    }
    case 'completeMultipartUpload': {
      const parts = (req.parts ?? []).map((p: any) => ({ partNumber: p.part, etag: p.etag }));
      const o = await bucket.resumeMultipartUpload(req.object, req.uploadId).complete(parts);
      return { status: 200, json: objectJson(o) };
    }
    case 'abortMultipartUpload':
      await bucket.resumeMultipartUpload(req.object, req.uploadId).abort();
      return { status: 200 };
    default:
      return { status: 400, error: { status: 400, v4code: 10029, message: 'Metadata missing or invalid' } };
  }
}

async function send(res: WireResponse, a: Answer): Promise<void> {
  const headers: Record<string, string> = {};
  if (a.error) headers['cf-r2-error'] = errorHeader(a.error);
  if (a.meta === undefined) {
    res.send(a.status, headers, a.json !== undefined ? Buffer.from(JSON.stringify(a.json)) : undefined);
    return;
  }
  const meta = Buffer.from(JSON.stringify(a.meta));
  headers['cf-r2-metadata-size'] = String(meta.length);
  const body = a.body;
  if (!body) {
    res.send(a.status, headers, meta);
    return;
  }
  const length = a.bodyLength ?? 0;
  try {
    if (length <= SMALL_VALUE) res.send(a.status, headers, body.whole ? [meta, body.whole] : [meta, ...(await allChunks(body.chunks))]);
    else await res.stream(a.status, headers, meta.length + length, prefixed(meta, body.chunks));
  } finally {
    await body.release();
  }
}

/** Every chunk of `chunks`. */
async function allChunks(chunks: AsyncIterator<Uint8Array>): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) parts.push(next.value);
  return parts;
}

/** `first`, then the chunks of `rest` (ended with `return()` when the reader stops early, which closes its blobs). */
async function* prefixed(first: Uint8Array, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield first;
  try {
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}

/** A header value as workerd sent it: raw UTF-8 bytes, which the wire reads as latin1 (as Node does). */
function utf8Header(value: string | undefined): string {
  const text = value ?? '';
  return /[^\x00-\x7f]/.test(text) ? Buffer.from(text, 'latin1').toString('utf8') : text;
}

/** How many bindings are kept (a binding is one script version's bucket). */
const BINDINGS_KEPT = 10_000;
/** How long a resolved bucket is reused: a change of the bucket's settings (its default storage class) reaches scripts within it. */
const BUCKET_KEPT_MS = 1000;

/** Options of {@link startStoreService}. */
export interface StoreServiceOptions {
  secret: string;
  bucketFor: BucketResolver;
  logger: Logger;
  /**
   * A Unix socket to listen on instead of a loopback TCP port (the edge runtime's private folder): each bucket
   * operation is one HTTP request from workerd, and a Unix socket spares both sides the TCP stack on every one.
   */
  socketPath?: string;
}

/** Starts the store service on loopback (or on `socketPath`). */
export async function startStoreService(opts: StoreServiceOptions): Promise<StoreService> {
  const secret = Buffer.from(opts.secret);
  const log = opts.logger.child({ component: 'store-service' });
  // A binding's header is the same on each of its requests (workerd injects it): parsed once, its bucket
  // resolved again after BUCKET_KEPT_MS.
  const bindings = new Map<string, KnownBinding>();
  const bindingOf = (header: string): KnownBinding => {
    let known = bindings.get(header);
    if (!known) {
      if (bindings.size >= BINDINGS_KEPT) bindings.clear();
      known = { binding: JSON.parse(header) as Binding, until: 0 };
      bindings.set(header, known);
    }
    return known;
  };
  const bucketOf = async (known: KnownBinding): Promise<ServedBucket> => {
    const now = Date.now();
    if (known.bucket && known.until > now) return known.bucket;
    const { binding } = known;
    const bucketOptions: BucketOptions = {};
    if (binding.compatibilityDate) bucketOptions.compatibilityDate = binding.compatibilityDate;
    if (binding.compatibilityFlags) bucketOptions.compatibilityFlags = binding.compatibilityFlags;
    const bucket: StoreBucket & Partial<RecordReads> = await opts.bucketFor(binding.accountId, binding.bucket, bucketOptions);
    if (typeof bucket[READ_RECORD] !== 'function') throw new Error('the store service serves buckets of the store only (they read records)');
    known.bucket = bucket as ServedBucket;
    known.until = now + BUCKET_KEPT_MS;
    return known.bucket;
  };
  const handle = async (req: WireRequest, res: WireResponse): Promise<void> => {
    const given = Buffer.from(String(req.headers[STORE_SECRET_HEADER] ?? ''));
    if (given.length !== secret.length || !crypto.timingSafeEqual(given, secret)) {
      res.send(403, {});
      return;
    }
    const known = bindingOf(String(req.headers[STORE_BINDING_HEADER]));
    const binding = known.binding;
    let answer: Answer;
    let action = 'unknown';
    try {
      const bucket = await bucketOf(known);
      if (req.method === 'GET') {
        const json = JSON.parse(utf8Header(req.headers['cf-r2-request']));
        action = json.method;
        answer = await runGet(bucket, json);
      } else {
        const metadataSize = Number(req.headers['cf-r2-metadata-size']);
        const body = await splitBody(req.body, metadataSize, req.contentLength);
        action = (body.json as { method: string }).method;
        answer = await runPut(bucket, body.json, body.value);
      }
    } catch (err) {
      const e = protocolError(err);
      if (e.v4code === 10001) log.warn({ action, bucket: binding.bucket }, 'bucket operation failed (10001)');
      answer = { status: e.status, error: e };
    }
    await send(res, answer);
  };
  const server = createWireServer(async (req, res) => {
    try {
      await handle(req, res);
    } catch (err) {
      log.error({ err }, 'store service request failed');
      if (!res.started) res.send(500, { 'cf-r2-error': errorHeader(protocolError(err)) });
      else res.abort();
    }
  }, { maxHeaderBytes: 16 * 1024 * 1024, idleTimeoutMs: 60_000 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (opts.socketPath !== undefined) server.listen(opts.socketPath, () => resolve());
    else server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    address: opts.socketPath !== undefined ? `unix:${opts.socketPath}` : `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
