/**
 * `x-amz-expected-bucket-owner` and `x-amz-source-expected-bucket-owner`: a client names the account it expects
 * to own the request's bucket (and a copy's source bucket); when that is not the owner, S3 refuses the request
 * with 403 AccessDenied before doing anything. A bucket's owner here is the account whose buckets the request
 * sees (every bucket a request can reach belongs to it, copy sources included), the id ListBuckets and the
 * listings show as `Owner/ID` ({@link ownerOf}).
 */
import type { S3Request } from './context.js';
import { S3Error } from './errors.js';

/** The owner element of listings: the account id, as ID and display name. */
export function ownerOf(r: S3Request): { ID: string; DisplayName: string } {
  return { ID: r.accountId, DisplayName: r.accountId };
}

/** Throws AccessDenied (403) when an expected-owner header names another account than the bucket's. */
export function checkExpectedBucketOwner(r: S3Request): void {
  const expected = r.bucket === undefined ? null : r.headers.get('x-amz-expected-bucket-owner');
  const source = r.headers.has('x-amz-copy-source') ? r.headers.get('x-amz-source-expected-bucket-owner') : null;
  for (const value of [expected, source]) {
    if (value !== null && value.trim() !== r.accountId) throw new S3Error('AccessDenied', 'Access Denied', 403);
  }
}
