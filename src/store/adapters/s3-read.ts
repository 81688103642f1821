/**
 * Reading one S3 object as a BlobHandle. `open` is a HeadObject (size and etag); reads are ranged GetObjects
 * of at most `rangeSize` bytes, each with `If-Match` of the etag seen at open, so an object replaced under
 * the key is refused (412) rather than mixed into the bytes. The next range is requested as soon as the
 * current one starts streaming. Unlike a file, S3 cannot pin the bytes: a blob deleted after `open` makes
 * the next range fail with a StoreInvariantError, never return short or foreign bytes.
 */
import { GetObjectCommand, HeadObjectCommand, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import type { BlobHandle } from '../ports.js';
import { StoreInvariantError } from '../errors.js';
import { statusOf } from './s3-client.js';
import type { S3Target } from './s3-write.js';

/** One ranged GetObject in flight. */
interface RangeRequest {
  to: number;
  abort: AbortController;
  response: Promise<GetObjectCommandOutput>;
}

function bodyOf(out: GetObjectCommandOutput, key: string): Readable {
  if (!(out.Body instanceof Readable)) throw new StoreInvariantError(`the S3 reply for ${key} has no readable body`);
  return out.Body;
}

/** Destroys the body of a reply that nobody will read (its socket is not reusable mid-body). */
function discard(req: RangeRequest): void {
  req.abort.abort();
  req.response.then((out) => (out.Body instanceof Readable ? out.Body.destroy() : undefined), () => undefined);
}

/** Translates the failures that mean "this blob is gone" into a clear invariant error. */
function readFailure(err: unknown, blobId: string): unknown {
  const status = statusOf(err);
  if (status === 404) return new StoreInvariantError(`blob ${blobId} was deleted while it was being read`);
  if (status === 412) return new StoreInvariantError(`blob ${blobId} was replaced while it was being read`);
  return err;
}

/** Opens the object `t.key` (blob `blobId`); rejects with a StoreInvariantError when it does not exist. */
export async function openObject(t: S3Target, blobId: string, rangeSize: number): Promise<BlobHandle> {
  let head;
  try {
    head = await t.client.send(new HeadObjectCommand({ Bucket: t.bucket, Key: t.key }));
  } catch (err) {
    if (statusOf(err) === 404) throw new StoreInvariantError(`blob ${blobId} does not exist`);
    throw err;
  }
  const size = head.ContentLength ?? 0;
  const etag = head.ETag;
  const live = new Set<RangeRequest>();
  let closed = false;

  const request = (from: number, end: number): RangeRequest => {
    const to = Math.min(end, from + rangeSize);
    const abort = new AbortController();
    const response = t.client.send(
      new GetObjectCommand({ Bucket: t.bucket, Key: t.key, Range: `bytes=${from}-${to - 1}`, ...(etag ? { IfMatch: etag } : {}) }),
      { abortSignal: abort.signal },
    );
    response.catch(() => undefined); // observed when its turn comes, or dropped with the read
    const req = { to, abort, response };
    live.add(req);
    return req;
  };

  return {
    size,
    async *read(offset: number, length: number): AsyncIterable<Uint8Array> {
      if (length === 0) return;
      if (closed) throw new StoreInvariantError(`blob ${blobId} was read after its handle was closed`);
      if (offset < 0 || length < 0 || offset + length > size) throw new StoreInvariantError(`range ${offset}+${length} is outside blob ${blobId} (${size} bytes)`);
      const end = offset + length;
      let current: RangeRequest | undefined = request(offset, end);
      let next: RangeRequest | undefined;
      let from = offset;
      try {
        while (current) {
          const out = await current.response.catch((err: unknown) => {
            throw readFailure(err, blobId);
          });
          next = current.to < end ? request(current.to, end) : undefined;
          let got = 0;
          const expected = current.to - from;
          for await (const chunk of bodyOf(out, t.key) as AsyncIterable<Buffer>) {
            got += chunk.byteLength;
            if (got > expected) throw new StoreInvariantError(`blob ${blobId} returned more bytes than asked`);
            yield chunk;
          }
          if (got !== expected) throw new StoreInvariantError(`blob ${blobId} is shorter than expected`);
          live.delete(current);
          from = current.to;
          current = next;
          next = undefined;
        }
      } finally {
        // A consumer that stops early (or a failure) must not leave a request or a body open.
        for (const req of [current, next]) {
          if (!req) continue;
          live.delete(req);
          discard(req);
        }
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const req of live) discard(req);
      live.clear();
    },
  };
}
