/**
 * Connection settings of the S3 blob adapter, the client built from them, and the blob-id <-> key mapping.
 * The client sends no flexible checksums (`WHEN_REQUIRED`): some S3-compatible services refuse or mishandle
 * them, and every body is sent as a buffer, so SigV4 already signs its SHA-256 and the service verifies it.
 */
import { S3Client } from '@aws-sdk/client-s3';

/** Settings of {@link S3BlobStore}. */
export interface S3BlobStoreOptions {
  /** URL of an S3-compatible service (`https://s3.example.com`); omit for AWS S3. */
  endpoint?: string;
  /** Signing region (`auto`, `us-east-1`, ...). */
  region: string;
  /** The bucket that holds the blobs; it must exist. */
  bucket: string;
  /** Key prefix of every blob (default `blobs/`); several stores may share a bucket under distinct prefixes. */
  prefix?: string;
  /** Access key; default: the SDK's credential chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible services need. */
  forcePathStyle?: boolean;
}

/** Blob ids as `newBlobId()` makes them: 32 random bytes and an 8-byte ms timestamp, in hex. */
const BLOB_ID_RE = /^[0-9a-f]{80}$/;

/** True when `id` has the shape of a blob id. */
export function isBlobId(id: string): boolean {
  return BLOB_ID_RE.test(id);
}

/** The creation time (epoch ms) embedded in the last 16 hex characters of a blob id. */
export function blobIdTime(id: string): number {
  return Number(BigInt(`0x${id.slice(64)}`));
}

/**
 * An S3 client for the adapter: the SDK's standard retries (3 attempts, exponential backoff with jitter, on
 * throttling, 5xx and connection failures); no flexible checksums; a connection that cannot be opened in 5 s
 * or a socket silent for 60 s fails instead of hanging the request.
 */
export function createS3Client(opts: S3BlobStoreOptions): S3Client {
  return new S3Client({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    region: opts.region,
    ...(opts.endpoint !== undefined ? { endpoint: opts.endpoint } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    forcePathStyle: opts.forcePathStyle ?? false,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** HTTP status of a failed SDK call, if the service answered. */
export function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}
