/** What an S3 operation works with: the parsed request, its verified signature and the bucket store. */
import type { BucketInfo, BucketNamespace, BucketStore, StoreBucket } from '../store/index.js';
import { withBucketDefaults } from '../store/index.js';
import type { Logger } from '../shared/logger.js';
import type { SignedRequestInfo } from './sigv4.js';
import { s3Error } from './errors.js';
import type { Limits } from '../limits/limits.js';

/** Long-lived dependencies of the S3 edge, as the handler is built with them (`createS3Handler`). */
export interface S3HandlerDeps extends Omit<S3Deps, 'store'> {
  /** The whole bucket store; each request sees only its account's buckets (`forAccount`). */
  store: BucketStore;
  /** The account the instance's own key pair acts for (the admin's), also used by unsigned preflights without an account in the host. */
  defaultAccountId: string;
  /** Failed-authentication throttle and the S3 request rate (limits/); absent: no limits. */
  limits?: Limits;
}

/** What an operation works with: the buckets of the request's account and the edge's settings. */
export interface S3Deps {
  /** The buckets of the request's account (names are per account). */
  store: BucketNamespace;
  /**
   * Who holds an access key id (its secret, and what it may do), or undefined when the id is unknown;
   * `sessionToken` is the request's `x-amz-security-token` (temporary credentials); `fresh` skips any
   * remembered look-up (a signature that fails against a remembered secret is retried so).
   */
  principalFor(accessKeyId: string, sessionToken?: string, fresh?: boolean): Promise<S3Principal | undefined>;
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
  /**
   * Whose request rate the key's requests count against (`user:<id>`, or `token:<id>` for an account-owned
   * token, as on the v4 API); absent: the access key id itself.
   */
  subject?: string;
  /**
   * The accounts the key acts for, the first being the one a request means when its host names none; absent:
   * the instance's default account only (the instance's own key pair).
   */
  accountIds?: string[];
  /** Whether it may do what an operation needs in the account; absent: everything (the instance's own key pair). */
  may?(need: S3Need, accountId: string): boolean;
  /**
   * For keys limited to a bucket and some objects or prefixes (temporary credentials): whether a request on
   * `bucket` reaches `key`, or for a request without a key, the listing prefix it asks for.
   */
  reaches?(bucket: string | undefined, key: string | undefined, listPrefix: string | undefined): boolean;
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
  /** The account whose buckets the request sees (from the host, else the key's own account). */
  accountId: string;
  /** Bucket and key from the path (path-style) or from the host and path (virtual-hosted style). */
  bucket: string | undefined;
  key: string | undefined;
  requestId: string;
  deps: S3Deps;
}

/** S3 lists common prefixes with the delimiter kept: the binding's compatibility flag for that. */
const S3_BUCKET_OPTIONS = { compatibilityFlags: ['store_list_prefixes_keep_delimiter', 'store_list_honor_include'] };

/**
 * The bucket's registry entry; NoSuchBucket (404) unless the bucket (default: the request's) exists in the
 * request's account. A bucket of another account is answered exactly like one that does not exist.
 */
export async function requireBucket(r: S3Request, name = r.bucket!): Promise<BucketInfo> {
  const info = await r.deps.store.bucketInfo(name);
  if (!info) throw s3Error('NoSuchBucket', 404, { BucketName: name });
  return info;
}

/** The bucket (default: the request's) as a binding with the bucket's default storage class; NoSuchBucket (404) when it does not exist. */
export async function existingBucket(r: S3Request, name = r.bucket!): Promise<StoreBucket> {
  const info = await requireBucket(r, name);
  return r.deps.store.bucket(name, withBucketDefaults(info, S3_BUCKET_OPTIONS));
}

/** The request's key (object operations always have one). */
export function keyOf(r: S3Request): string {
  return r.key!;
}
