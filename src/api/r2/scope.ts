/**
 * What every v4 bucket route checks first: the account of the path is one of the caller's (else 7003, as for
 * any foreign or unknown account), the `cf-r2-jurisdiction` header names the only jurisdiction Stratus has
 * (`default`), and the bucket name is one R2 accepts. The route then sees only that account's buckets.
 */
import type { Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { BucketNamespace, BucketStore } from '../../store/index.js';
import { AppError } from '../../shared/errors.js';
import { requireAccount } from '../routes/dns-settings.js';
import { unauthorized } from '../token-access.js';
import { invalidArgument, R2_CODES } from './errors.js';

/** R2 bucket names: 3–63 lowercase letters, digits and hyphens, starting and ending with a letter or digit. */
export function isValidR2BucketName(name: string): boolean {
  return /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(name);
}

/** Refuses a jurisdiction other than `default` (Stratus keeps every bucket in one place). */
export function checkJurisdiction(c: Context<ApiEnv>): void {
  const j = c.req.header('cf-r2-jurisdiction');
  if (j !== undefined && j !== '' && j.toLowerCase() !== 'default') {
    throw invalidArgument(`Jurisdiction ${JSON.stringify(j)} is not available on this instance: every bucket is in the "default" jurisdiction`);
  }
}

/** The buckets of the path's account, after the membership and jurisdiction checks. */
export function accountBuckets(c: Context<ApiEnv>, store: BucketStore): { accountId: string; buckets: BucketNamespace } {
  const accountId = requireAccount(c);
  checkJurisdiction(c);
  return { accountId, buckets: store.forAccount(accountId) };
}

/** The path's bucket name, checked (10005 when R2 would not accept it). */
export function bucketParam(c: Context<ApiEnv>): string {
  const name = c.req.param('bucket_name') ?? '';
  if (!isValidR2BucketName(name)) throw new AppError(R2_CODES.invalidBucketName, 'The specified bucket name is not valid.', 400);
  return name;
}

/** For an API token: refuses unless it holds `bucket_item:<level>` on the bucket (account groups or bucket-scoped ones). */
export function authorizeBucketItems(c: Context<ApiEnv>, accountId: string, bucket: string, level: 'read' | 'edit'): void {
  const token = c.get('user').token;
  if (token && !token.grants.allowsBucket(`bucket_item:${level}`, bucket, [accountId])) throw unauthorized();
}
