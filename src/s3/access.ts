/**
 * What each S3 operation needs from the key that signed it, and the check. The instance's own key pair may
 * do everything; a key pair derived from an API token (`docs/api-tokens.md`) may do what the token's
 * R2 permission groups grant: bucket-level operations (list, create, delete buckets, set CORS, lifecycle rules)
 * need Workers R2 Storage Read/Write on an account, object operations the Bucket Item groups on the bucket (or the account
 * groups); a copy also needs to read its source bucket. A refusal is `AccessDenied` (403).
 */
import type { S3Need, S3Principal, S3Request } from './context.js';
import { S3Error } from './errors.js';
import { parseCopySource, type CopySource } from './copy-source.js';

const BUCKETS_READ = new Set(['ListBuckets', 'GetBucketLifecycleConfiguration']);
const BUCKETS_EDIT = new Set(['CreateBucket', 'DeleteBucket', 'PutBucketCors', 'DeleteBucketCors', 'PutBucketLifecycleConfiguration', 'DeleteBucketLifecycle']);
const ITEMS_READ = new Set(['GetBucketCors', 'GetBucketLocation', 'GetBucketVersioning', 'HeadBucket', 'ListMultipartUploads', 'ListObjectVersions',
  'ListObjectsV2', 'ListObjects', 'GetObjectTagging', 'ListParts', 'GetObject', 'HeadObject', 'GetObjectAttributes']);
/** Operations that read the object `x-amz-copy-source` names. */
const COPIES = new Set(['CopyObject', 'UploadPartCopy']);
const ITEMS_EDIT = new Set(['DeleteObjects', 'DeleteObjectTagging', 'UploadPart', 'PutObject', 'AbortMultipartUpload', 'DeleteObject',
  'CreateMultipartUpload', 'CompleteMultipartUpload', 'CopyObject', 'UploadPartCopy']);

/** What the operation needs (none for operations that are answered NotImplemented). */
export function needsOf(r: S3Request, operation: string): S3Need[] {
  if (BUCKETS_READ.has(operation)) return [{ buckets: 'read' }];
  if (BUCKETS_EDIT.has(operation)) return [{ buckets: 'edit' }];
  if (ITEMS_READ.has(operation)) return [{ bucketItems: 'read', bucket: r.bucket! }];
  if (!ITEMS_EDIT.has(operation)) return [];
  const needs: S3Need[] = [{ bucketItems: 'edit', bucket: r.bucket! }];
  const source = copySourceOf(r, operation);
  if (source !== undefined) needs.push({ bucketItems: 'read', bucket: source.bucket });
  return needs;
}

/** Refuses the request when its key may not do what the operation needs in the request's account. */
export function authorizeOperation(r: S3Request, operation: string): void {
  const { may, reaches } = r.principal;
  if (!may) return;
  if (!needsOf(r, operation).every((need) => may(need, r.accountId))) throw new S3Error('AccessDenied', 'Access Denied', 403);
  if (!reaches || operation === 'ListBuckets') return;
  const listPrefix = r.key === undefined ? r.query.get('prefix') ?? '' : undefined;
  const source = copySourceOf(r, operation);
  const sourceReached = source === undefined || reaches(source.bucket, source.key, undefined);
  if (!reaches(r.bucket, r.key, listPrefix) || !sourceReached) throw new S3Error('AccessDenied', 'Access Denied', 403);
}

/**
 * The account a request acts in: the one its host names, else the key's own (the first it acts for; the
 * instance's default account for the instance's key pair). A host naming an account the key does not act
 * for is AccessDenied, the same for an account that exists and one that does not.
 */
export function requestAccount(principal: S3Principal, hostAccount: string | undefined, defaultAccountId: string): string {
  const accounts = principal.accountIds ?? [defaultAccountId];
  if (hostAccount === undefined) {
    if (accounts.length === 0) throw new S3Error('AccessDenied', 'Access Denied', 403);
    return accounts[0]!;
  }
  if (!accounts.includes(hostAccount)) throw new S3Error('AccessDenied', 'Access Denied', 403);
  return hostAccount;
}

/**
 * The object a copy reads (CopyObject, UploadPartCopy), parsed by the same function as the operation itself
 * (`copy-source.ts`), so the bucket checked here is the bucket the copy reads, whatever the header's encoding.
 */
function copySourceOf(r: S3Request, operation: string): CopySource | undefined {
  const header = r.headers.get('x-amz-copy-source');
  return header === null || !COPIES.has(operation) ? undefined : parseCopySource(header);
}
