/**
 * A bucket's CORS rules (`…/r2/buckets/:bucket_name/cors`: GET, PUT `{rules}`, DELETE) and lifecycle rules
 * (`…/lifecycle`: GET, PUT `{rules}`), as wrangler's `r2 bucket cors|lifecycle` and the SDK call them. CORS
 * rules are the ones the S3 API's `?cors` keeps; lifecycle rules are applied by the store's sweeper.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import { LifecycleRulesError, parseLifecycleRules, withoutS3Form, type BucketStore } from '../../store/index.js';
import { AppError } from '../../shared/errors.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { accountBuckets, bucketParam } from './scope.js';
import { invalidArgument, noSuchBucket, R2_CODES } from './errors.js';
import { corsJson, parseCorsJson } from './cors-json.js';

/** Routes of bucket CORS and lifecycle configuration. */
export function r2ConfigRoutes(store: BucketStore): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const base = '/accounts/:account_id/r2/buckets/:bucket_name';

  app.get(`${base}/cors`, async (c) => {
    const { buckets } = accountBuckets(c, store);
    const name = bucketParam(c);
    if (!(await buckets.bucketInfo(name))) throw noSuchBucket();
    const rules = await buckets.getBucketCors(name);
    if (!rules) throw new AppError(R2_CODES.noCors, 'The CORS configuration does not exist.', 404);
    return ok(c, { rules: corsJson(rules) });
  });
  app.put(`${base}/cors`, async (c) => {
    const { buckets } = accountBuckets(c, store);
    const name = bucketParam(c);
    if (!(await buckets.bucketInfo(name))) throw noSuchBucket();
    const rules = parseCorsJson(await readJsonObject(c));
    if ((await buckets.putBucketCors(name, rules)) === 'missing') throw noSuchBucket();
    return ok(c, {});
  });
  app.delete(`${base}/cors`, async (c) => {
    const { buckets } = accountBuckets(c, store);
    if ((await buckets.putBucketCors(bucketParam(c), null)) === 'missing') throw noSuchBucket();
    return ok(c, {});
  });

  app.get(`${base}/lifecycle`, async (c) => {
    const { buckets } = accountBuckets(c, store);
    const rules = await buckets.getBucketLifecycle(bucketParam(c));
    if (!rules) throw noSuchBucket();
    return ok(c, { rules: rules.map(withoutS3Form) });
  });
  app.put(`${base}/lifecycle`, async (c) => {
    const { buckets } = accountBuckets(c, store);
    const name = bucketParam(c);
    if (!(await buckets.bucketInfo(name))) throw noSuchBucket();
    const body = await readJsonObject(c);
    let rules;
    try {
      rules = parseLifecycleRules(body.rules ?? []);
    } catch (err) {
      if (err instanceof LifecycleRulesError) throw invalidArgument(`Invalid lifecycle rules: ${err.message}`);
      throw err;
    }
    if ((await buckets.putBucketLifecycle(name, rules)) === 'missing') throw noSuchBucket();
    return ok(c, {});
  });
  return app;
}
