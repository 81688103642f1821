/**
 * `/accounts/:account_id/r2/buckets` as production answers it (the official SDK's `r2.buckets.*`, wrangler's
 * `r2 bucket create|list|info|delete|update storage-class`): list (`name_contains`, `start_after`, `cursor`,
 * `per_page`, `order=name`, `direction`), create (`name`, `locationHint`, `storageClass`), get, delete (only
 * when empty), and PATCH of the default storage class (`cf-r2-storage-class`). Names are per account; another
 * account's bucket is answered exactly like one that does not exist.
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { BucketInfo, BucketStore, StorageClass } from '../../store/index.js';
import { bucketContents, notEmptyMessage } from '../../store/index.js';
import { AppError } from '../../shared/errors.js';
import { isoTimestamp } from '../../shared/clock.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { successBody } from '../envelope.js';
import { accountBuckets, bucketParam, isValidR2BucketName } from './scope.js';
import { invalidArgument, noSuchBucket, R2_CODES } from './errors.js';

const LOCATIONS = ['apac', 'eeur', 'enam', 'weur', 'wnam', 'oc'];
const MAX_PER_PAGE = 1000;

/** The bucket object of the v4 API. */
export function bucketView(b: BucketInfo): Record<string, unknown> {
  return {
    name: b.name,
    creation_date: isoTimestamp(b.created),
    ...(b.location ? { location: b.location } : {}),
    storage_class: b.storageClass ?? 'Standard',
    jurisdiction: 'default',
  };
}

/** A storage class as sent (`undefined` when absent); 10040 when it is not one of the two. */
export function parseStorageClass(value: unknown, what: string): StorageClass | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === 'Standard' || value === 'InfrequentAccess') return value;
  throw invalidArgument(`Invalid ${what} ${JSON.stringify(value)}: use Standard or InfrequentAccess`);
}

/** Cursors are the last name of a page, opaque to clients. */
const encodeCursor = (name: string): string => Buffer.from(name, 'utf8').toString('base64url');
function decodeCursor(raw: string): string {
  const name = Buffer.from(raw, 'base64url').toString('utf8');
  if (!isValidR2BucketName(name)) throw invalidArgument('Invalid cursor: send the cursor of a previous page');
  return name;
}

/** One page of the account's buckets, after the query's filters. */
function listPage(c: Context<ApiEnv>, all: BucketInfo[]): { page: BucketInfo[]; cursor?: string; perPage: number } {
  const q = (name: string) => c.req.query(name);
  const perPageRaw = q('per_page');
  const perPage = perPageRaw === undefined || perPageRaw === '' ? 20 : Number(perPageRaw);
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) throw invalidArgument(`Invalid per_page ${JSON.stringify(perPageRaw)}: a whole number from 1 to ${MAX_PER_PAGE}`);
  const order = q('order');
  if (order !== undefined && order !== '' && order !== 'name') throw invalidArgument(`Invalid order ${JSON.stringify(order)}: use name`);
  const direction = q('direction') || 'asc';
  if (direction !== 'asc' && direction !== 'desc') throw invalidArgument(`Invalid direction ${JSON.stringify(direction)}: use asc or desc`);
  const contains = q('name_contains') ?? '';
  const cursor = q('cursor');
  const after = cursor ? decodeCursor(cursor) : q('start_after') || undefined;
  let rows = all.filter((b) => b.name.includes(contains));
  if (direction === 'desc') rows = rows.reverse();
  if (after !== undefined) rows = rows.filter((b) => (direction === 'asc' ? b.name > after : b.name < after));
  const page = rows.slice(0, perPage);
  return { page, perPage, ...(rows.length > perPage ? { cursor: encodeCursor(page[page.length - 1]!.name) } : {}) };
}

/** Routes of an account's buckets. */
export function r2BucketRoutes(store: BucketStore): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/accounts/:account_id/r2/buckets', async (c) => {
    const { buckets } = accountBuckets(c, store);
    const { page, cursor, perPage } = listPage(c, await buckets.listBuckets());
    const body = successBody({ buckets: page.map(bucketView) }, c.get('messages'));
    return c.json({ ...body, result_info: { ...(cursor ? { cursor } : {}), per_page: perPage } });
  });

  app.post('/accounts/:account_id/r2/buckets', async (c) => {
    const { buckets } = accountBuckets(c, store);
    const body = await readJsonObject(c);
    const name = typeof body.name === 'string' ? body.name : '';
    if (!isValidR2BucketName(name)) throw new AppError(R2_CODES.invalidBucketName, 'The specified bucket name is not valid.', 400);
    const storageClass = parseStorageClass(body.storageClass, 'storageClass');
    const hint = body.locationHint;
    if (hint !== undefined && hint !== null && (typeof hint !== 'string' || !LOCATIONS.includes(hint.toLowerCase()))) {
      throw invalidArgument(`Invalid locationHint ${JSON.stringify(hint)}: use one of ${LOCATIONS.join(', ')}`);
    }
    const location = typeof hint === 'string' ? hint.toLowerCase() : undefined;
    const outcome = await buckets.createBucket(name, { ...(storageClass ? { storageClass } : {}), ...(location ? { location } : {}) });
    if (outcome === 'exists') throw new AppError(R2_CODES.bucketExists, 'The bucket you tried to create already exists, and you own it.', 409);
    return ok(c, bucketView((await buckets.bucketInfo(name))!));
  });

  app.get('/accounts/:account_id/r2/buckets/:bucket_name', async (c) => {
    const { buckets } = accountBuckets(c, store);
    const info = await buckets.bucketInfo(bucketParam(c));
    if (!info) throw noSuchBucket();
    return ok(c, bucketView(info));
  });

  app.patch('/accounts/:account_id/r2/buckets/:bucket_name', async (c) => {
    const { buckets } = accountBuckets(c, store);
    const name = bucketParam(c);
    const cls = parseStorageClass(c.req.header('cf-r2-storage-class'), 'cf-r2-storage-class header');
    if (!cls) throw invalidArgument('Send the new default storage class in the cf-r2-storage-class header (Standard or InfrequentAccess)');
    if ((await buckets.setBucketStorageClass(name, cls)) === 'missing') throw noSuchBucket();
    return ok(c, bucketView((await buckets.bucketInfo(name))!));
  });

  app.delete('/accounts/:account_id/r2/buckets/:bucket_name', async (c) => {
    const { buckets } = accountBuckets(c, store);
    const name = bucketParam(c);
    const outcome = await buckets.deleteBucket(name);
    if (outcome === 'missing') throw noSuchBucket();
    if (outcome === 'not-empty') throw new AppError(R2_CODES.bucketNotEmpty, notEmptyMessage(await bucketContents(buckets, name)), 409);
    return ok(c, {});
  });
  return app;
}
