/**
 * `POST /accounts/:account_id/r2/temp-access-credentials` as production takes it: `{bucket, parentAccessKeyId,
 * permission, ttlSeconds, objects?, prefixes?}` gives `{accessKeyId, secretAccessKey, sessionToken}`, accepted
 * by the S3 API until `ttlSeconds` have passed (s3/temp-credentials.ts). The parent must be an S3 key of the
 * account (an API token id of a member) whose R2 groups cover the permission asked; the bucket must be the
 * account's.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import { TEMP_PERMISSIONS, MAX_TEMP_TTL_SECONDS, TempCredentials, type TempPermission } from '../../s3/temp-credentials.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { requireAccount } from '../routes/dns-settings.js';
import { invalidArgument } from './errors.js';
import { isValidR2BucketName } from './scope.js';

function stringList(value: unknown, name: string, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    problems.push(`${name} must be an array of non-empty strings`);
    return [];
  }
  return value as string[];
}

/** The temporary credentials route (the store is consulted through `buckets` for the bucket's existence). */
export function r2TempCredentialRoutes(temp: TempCredentials, bucketExists: (accountId: string, bucket: string) => Promise<boolean>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/accounts/:account_id/r2/temp-access-credentials', async (c) => {
    const accountId = requireAccount(c);
    const body = await readJsonObject(c);
    const problems: string[] = [];
    const bucket = typeof body.bucket === 'string' ? body.bucket : '';
    if (!isValidR2BucketName(bucket)) problems.push('bucket must be the name of a bucket of the account');
    const parent = typeof body.parentAccessKeyId === 'string' ? body.parentAccessKeyId : '';
    if (parent === '') problems.push('parentAccessKeyId must be the access key id of an R2 key (API token) of the account');
    const permission = body.permission as TempPermission;
    if (!TEMP_PERMISSIONS.includes(permission)) problems.push(`permission must be one of ${TEMP_PERMISSIONS.join(', ')}`);
    const ttl = body.ttlSeconds;
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TEMP_TTL_SECONDS) problems.push(`ttlSeconds must be a whole number from 1 to ${MAX_TEMP_TTL_SECONDS}`);
    const objects = stringList(body.objects, 'objects', problems);
    const prefixes = stringList(body.prefixes, 'prefixes', problems);
    if (problems.length > 0) throw invalidArgument(problems.join('; '));
    if (!(await bucketExists(accountId, bucket))) throw invalidArgument(`The bucket ${bucket} does not exist in this account`);
    const found = await temp.parent(parent, accountId);
    if (found === undefined) throw invalidArgument('parentAccessKeyId is not an active R2 access key of this account');
    if (!TempCredentials.covers(found.may, permission, bucket)) throw invalidArgument(`The parent access key may not grant ${permission} on ${bucket}`);
    return ok(c, temp.issue(found.secret, { parentAccessKeyId: parent, accountId, bucket, permission, objects, prefixes }, ttl as number));
  });
  return app;
}
