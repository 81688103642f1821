/** What an S3 operation works with: the parsed request, its verified signature and the bucket store. */
import type { BucketStore, StoreBucket } from '../store/index.js';
import type { Logger } from '../shared/logger.js';
import type { SignedRequestInfo } from './sigv4.js';
import { s3Error } from './errors.js';

/** Long-lived dependencies of the S3 edge. */
export interface S3Deps {
  store: BucketStore;
  /**
   * Who holds an access key id (its secret, and what it may do), or undefined when the id is unknown;
   * `fresh` skips any remembered look-up (a signature that fails against a remembered secret is retried so).
   */
  principalFor(accessKeyId: string, fresh?: boolean): Promise<S3Principal | undefined>;
  logger: Logger;
  /** Region name reported by GetBucketLocation (requests may be signed for any region). */
  region: string;
  /** Domain of virtual-hosted-style addressing (`<bucket>.<domain>`), lowercase; undefined: path-style only. */
  domain?: string | undefined;
  now(): Date;
}

/** What an S3 operation needs: to read or change objects of a bucket, or to read or change buckets themselves. */
export type S3Need = { bucketItems: 'read' | 'edit'; bucket: string } | { buckets: 'read' | 'edit' };

/** The holder of an access key. */
export interface S3Principal {
  secret: string;
  /** Whether it may do what an operation needs; absent: everything (the instance's own key pair). */
  may?(need: S3Need): boolean;
}

/** One request, routed. */
export interface S3Request {
  req: Request;
  url: URL;
  query: URLSearchParams;
  headers: Headers;
  auth: SignedRequestInfo;
  /** Who signed it. */
  principal: S3Principal;
  /** Bucket and key from the path (path-style) or from the host and path (virtual-hosted style). */
  bucket: string | undefined;
  key: string | undefined;
  requestId: string;
  deps: S3Deps;
}

/** S3 lists common prefixes with the delimiter kept: the binding's compatibility flag for that. */
const S3_BUCKET_OPTIONS = { compatibilityFlags: ['store_list_prefixes_keep_delimiter', 'store_list_honor_include'] };

/** NoSuchBucket (404) unless the bucket (default: the request's) exists. */
export async function requireBucket(r: S3Request, name = r.bucket!): Promise<void> {
  if (!(await r.deps.store.bucketInfo(name))) throw s3Error('NoSuchBucket', 404, { BucketName: name });
}

/** The bucket (default: the request's) as a binding; NoSuchBucket (404) when it does not exist. */
export async function existingBucket(r: S3Request, name = r.bucket!): Promise<StoreBucket> {
  await requireBucket(r, name);
  return r.deps.store.bucket(name, S3_BUCKET_OPTIONS);
}

/** The request's key (object operations always have one). */
export function keyOf(r: S3Request): string {
  return r.key!;
}
