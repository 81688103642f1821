/**
 * `POST /graphql`, answering only the analytics query `wrangler r2 bucket info` sends
 * (`viewer.accounts(filter: {accountTag}).r2StorageAdaptiveGroups(filter: {bucketName})` with
 * `max {objectCount, payloadSize, metadataSize}`): the bucket's current object count and bytes, counted from
 * the store. The account must be the caller's (for a token: with Workers R2 Storage Read); anything else is
 * an empty `accounts` list, and any other query a GraphQL error.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import type { BucketStore } from '../../store/index.js';
import { readJsonObject } from '../body.js';
import { isValidR2BucketName } from './scope.js';

/** Objects and bytes of a bucket (a full listing; buckets of millions of objects take a while). */
async function usage(store: BucketStore, accountId: string, bucket: string): Promise<{ objectCount: number; payloadSize: number }> {
  const b = store.forAccount(accountId).bucket(bucket);
  let objectCount = 0;
  let payloadSize = 0;
  let cursor: string | undefined;
  do {
    const page = await b.list({ limit: 1000, ...(cursor ? { cursor } : {}) });
    objectCount += page.objects.length;
    for (const o of page.objects) payloadSize += o.size;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return { objectCount, payloadSize };
}

/** The GraphQL route. */
export function r2GraphqlRoute(store: BucketStore): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/graphql', async (c) => {
    const body = await readJsonObject(c);
    const query = typeof body.query === 'string' ? body.query : '';
    if (!query.includes('r2StorageAdaptiveGroups')) {
      return c.json({ data: null, errors: [{ message: 'Stratus answers only the r2StorageAdaptiveGroups query of wrangler r2 bucket info' }] });
    }
    const vars = (typeof body.variables === 'object' && body.variables !== null ? body.variables : {}) as { accountTag?: unknown; filter?: { bucketName?: unknown } };
    const accountId = typeof vars.accountTag === 'string' ? vars.accountTag : '';
    const bucket = typeof vars.filter?.bucketName === 'string' ? vars.filter.bucketName : '';
    const user = c.get('user');
    const allowed = user.accountIds.includes(accountId) && (!user.token || user.token.grants.allowsAccount('storage:read', accountId));
    if (!allowed) return c.json({ data: { viewer: { accounts: [] } }, errors: null });
    const exists = isValidR2BucketName(bucket) && (await store.forAccount(accountId).bucketInfo(bucket)) !== null;
    const groups = exists ? [{ max: { ...(await usage(store, accountId, bucket)), metadataSize: 0 }, dimensions: { datetime: new Date().toISOString() } }] : [];
    return c.json({ data: { viewer: { accounts: [{ r2StorageAdaptiveGroups: groups }] } }, errors: null });
  });
  return app;
}
