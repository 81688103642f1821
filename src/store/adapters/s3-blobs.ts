/**
 * BlobStore on any S3-compatible service, so several Stratus nodes can share object bodies: blob `<id>` is the
 * object `<prefix><id>` of one bucket, with ids as the file adapter makes them (`newBlobId()`). Writes stream
 * through `s3-write.ts` (single put or multipart, 8 MiB parts), reads through `s3-read.ts` (ranged GETs with
 * If-Match). Differences from the file adapter, documented in docs/store.md:
 *  - reads do not survive a delete: S3 cannot pin an object, so a handle's reads fail (clearly) once the
 *    blob is deleted. Deletions come from the collector `gcDelayMs` after the row stopped naming the blob,
 *    so run the store with {@link S3_GC_DELAY_MS} rather than the 2 s default.
 *  - interrupted writes are multipart uploads left on the service; `sweepIncomplete` aborts them.
 */
import {
  AbortMultipartUploadCommand, DeleteObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, ListPartsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { BlobHandle, BlobStore } from '../ports.js';
import { StoreInvariantError } from '../errors.js';
import { newBlobId } from './file-blobs.js';
import { blobIdTime, createS3Client, isBlobId, statusOf, type S3BlobStoreOptions } from './s3-client.js';
import { writeObject, type S3Target } from './s3-write.js';
import { openObject } from './s3-read.js';
import { NO_FAULT_REPORTER, reportingFaults, UnavailableError, type FaultReporter } from '../../shared/faults.js';

export type { S3BlobStoreOptions } from './s3-client.js';

/** Size of the parts of a multipart write (S3 needs at least 5 MiB for every part but the last). */
export const S3_PART_SIZE = 8 * 1024 * 1024;

/** Bytes fetched by one ranged GetObject of a read. */
export const S3_READ_RANGE = 8 * 1024 * 1024;

/**
 * The collector delay (`openBucketStore({ gcDelayMs })`) to use with this adapter: a read of a replaced or
 * deleted object keeps working only while its blob exists, so replaced blobs are kept 15 minutes.
 */
export const S3_GC_DELAY_MS = 15 * 60 * 1000;

/** Blobs as objects under a prefix of one S3 bucket. */
export class S3BlobStore implements BlobStore {
  /** The SDK client (for tests and tools); {@link destroy} closes it. */
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  private readonly health: FaultReporter;

  constructor(opts: S3BlobStoreOptions & { health?: FaultReporter }) {
    this.client = createS3Client(opts);
    this.bucket = opts.bucket;
    this.prefix = opts.prefix ?? 'blobs/';
    this.health = opts.health ?? NO_FAULT_REPORTER;
  }

  /**
   * Runs a call to the service: a failure the service caused (no answer, or 5xx after the SDK's retries with
   * backoff) is reported and thrown as UnavailableError('blob-store'); a success ends an outage.
   */
  private guard<T>(fn: () => Promise<T>): Promise<T> {
    return reportingFaults(this.health, 'blob-store', (err) => (isServiceFault(err) ? new UnavailableError('blob-store', err) : undefined), fn);
  }

  /** Reads of a handle, guarded as {@link guard}: a read that fails midway is a fault too. */
  private async *guardedRead(handle: BlobHandle, offset: number, length: number): AsyncIterable<Uint8Array> {
    try {
      yield* handle.read(offset, length);
    } catch (err) {
      if (!isServiceFault(err)) throw err;
      this.health.down('blob-store', err);
      throw new UnavailableError('blob-store', err);
    }
  }

  private target(blobId: string): S3Target {
    if (!isBlobId(blobId)) throw new StoreInvariantError(`invalid blob id ${blobId}`);
    return { client: this.client, bucket: this.bucket, key: this.prefix + blobId };
  }

  /** The blob id of a key under the prefix, or undefined for keys this store did not write. */
  private idOf(key: string | undefined): string | undefined {
    if (!key?.startsWith(this.prefix)) return undefined;
    const id = key.slice(this.prefix.length);
    return isBlobId(id) ? id : undefined;
  }

  async write(source: AsyncIterable<Uint8Array>): Promise<string> {
    const id = newBlobId();
    await this.guard(() => writeObject(this.target(id), source, S3_PART_SIZE));
    return id;
  }

  async open(blobId: string): Promise<BlobHandle> {
    const handle = await this.guard(() => openObject(this.target(blobId), blobId, S3_READ_RANGE));
    return { size: handle.size, read: (offset, length) => this.guardedRead(handle, offset, length), close: () => handle.close() };
  }

  async delete(blobId: string): Promise<void> {
    const t = this.target(blobId);
    await this.guard(async () => {
      try {
        await this.client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: t.key }));
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    });
  }

  /**
   * Every blob under the prefix. `created` is the later of the time in the id (when the write started) and
   * the object's LastModified, so a long write that just completed is not mistaken for an old orphan.
   */
  async *list(): AsyncIterable<{ blobId: string; created: number }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, ...(token ? { ContinuationToken: token } : {}) }));
      for (const obj of page.Contents ?? []) {
        const blobId = this.idOf(obj.Key);
        if (blobId) yield { blobId, created: Math.max(blobIdTime(blobId), obj.LastModified?.getTime() ?? 0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Aborts multipart uploads under the prefix with no activity since `before`: initiated before it and, where
   * the service dates parts, with no part uploaded since (a slow write that is still sending parts is spared,
   * as a file write that is still writing keeps its temp file).
   */
  async sweepIncomplete(before: number): Promise<number> {
    const stale: { key: string; uploadId: string }[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const page = await this.client.send(new ListMultipartUploadsCommand({
        Bucket: this.bucket, Prefix: this.prefix,
        ...(keyMarker !== undefined ? { KeyMarker: keyMarker } : {}),
        ...(uploadIdMarker !== undefined ? { UploadIdMarker: uploadIdMarker } : {}),
      }));
      for (const u of page.Uploads ?? []) {
        if (!u.Key || !u.UploadId || !this.idOf(u.Key)) continue;
        if ((u.Initiated?.getTime() ?? 0) < before) stale.push({ key: u.Key, uploadId: u.UploadId });
      }
      if (!page.IsTruncated || (page.NextKeyMarker === keyMarker && page.NextUploadIdMarker === uploadIdMarker)) break;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
    let aborted = 0;
    for (const u of stale) {
      if ((await this.lastPartTime(u.key, u.uploadId)) >= before) continue;
      try {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: u.key, UploadId: u.uploadId }));
        aborted++;
      } catch (err) {
        if (statusOf(err) !== 404) throw err; // finished or aborted meanwhile
      }
    }
    return aborted;
  }

  /** When the upload last received a part (epoch ms; 0 without parts or when it is gone). */
  private async lastPartTime(key: string, uploadId: string): Promise<number> {
    let latest = 0;
    let marker: string | undefined;
    try {
      for (;;) {
        const page = await this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, ...(marker ? { PartNumberMarker: marker } : {}) }));
        for (const p of page.Parts ?? []) latest = Math.max(latest, p.LastModified?.getTime() ?? 0);
        if (!page.IsTruncated || !page.NextPartNumberMarker || page.NextPartNumberMarker === marker) return latest;
        marker = page.NextPartNumberMarker;
      }
    } catch (err) {
      if (statusOf(err) === 404) return 0;
      throw err;
    }
  }

  /** Closes the client's connections; the store is unusable afterwards. */
  destroy(): void {
    this.client.destroy();
  }
}

/**
 * True for failures of the service rather than of the request: SDK errors (they carry `$metadata`) without an
 * HTTP answer (refused, reset, timed out) or with a 5xx one. A failing request body has no `$metadata`.
 */
function isServiceFault(err: unknown): boolean {
  if (!(err instanceof Error) || !('$metadata' in err)) return false;
  const status = statusOf(err);
  return status === undefined || status >= 500;
}
