/**
 * Bucket lifecycle configuration over S3: PutBucketLifecycleConfiguration, GetBucketLifecycleConfiguration and
 * DeleteBucketLifecycle (`?lifecycle`), on the same stored rules as the v4 route and the store's sweeper
 * (`lifecycle-config.ts` maps the document).
 */
import { createHash } from 'node:crypto';
import { requireBucket, type S3Request } from '../context.js';
import { S3Error, s3Error } from '../errors.js';
import { contentMd5 } from '../headers.js';
import { lifecycleConfigurationXml, parseLifecycleConfiguration } from '../lifecycle-config.js';
import { readSmallBody } from './small-body.js';

const MINIMUM_SIZE_HEADER = 'x-amz-transition-default-minimum-object-size';

/** PUT /bucket?lifecycle: replaces the bucket's rules (Content-MD5, when sent, must match the body). */
export async function putBucketLifecycle(r: S3Request): Promise<Response> {
  await requireBucket(r);
  const md5 = contentMd5(r.headers);
  const text = await readSmallBody(r);
  if (md5 && !createHash('md5').update(text, 'utf8').digest().equals(md5)) {
    throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.', 400);
  }
  const rules = parseLifecycleConfiguration(text, r.headers.get(MINIMUM_SIZE_HEADER) ?? undefined);
  if ((await r.deps.store.putBucketLifecycle(r.bucket!, rules)) === 'missing') throw s3Error('NoSuchBucket', 404, { BucketName: r.bucket! });
  return new Response(null, { status: 200, headers: { [MINIMUM_SIZE_HEADER]: lifecycleConfigurationXml(rules).minimumObjectSize } });
}

/** GET /bucket?lifecycle: the rules, or NoSuchLifecycleConfiguration (404) when the bucket has none. */
export async function getBucketLifecycle(r: S3Request): Promise<Response> {
  const rules = await r.deps.store.getBucketLifecycle(r.bucket!);
  if (rules === null) throw s3Error('NoSuchBucket', 404, { BucketName: r.bucket! });
  if (rules.length === 0) throw new S3Error('NoSuchLifecycleConfiguration', 'The lifecycle configuration does not exist', 404, { BucketName: r.bucket! });
  const { body, minimumObjectSize } = lifecycleConfigurationXml(rules);
  return new Response(body, { status: 200, headers: { 'content-type': 'application/xml', [MINIMUM_SIZE_HEADER]: minimumObjectSize } });
}

/** DELETE /bucket?lifecycle: removes every rule, the default one included (204 also when there were none). */
export async function deleteBucketLifecycle(r: S3Request): Promise<Response> {
  if ((await r.deps.store.putBucketLifecycle(r.bucket!, [])) === 'missing') throw s3Error('NoSuchBucket', 404, { BucketName: r.bucket! });
  return new Response(null, { status: 204 });
}
