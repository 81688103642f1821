/** Bucket CORS configuration: PutBucketCors, GetBucketCors, DeleteBucketCors (`?cors`), kept by the bucket store. */
import { createHash } from 'node:crypto';
import { requireBucket, type S3Request } from '../context.js';
import { S3Error, s3Error } from '../errors.js';
import { contentMd5 } from '../headers.js';
import { corsConfigurationXml, parseCorsConfiguration } from '../cors-config.js';
import { readSmallBody } from './small-body.js';

/** PUT /bucket?cors: replaces the bucket's rules (Content-MD5, when sent, must match the body). */
export async function putBucketCors(r: S3Request): Promise<Response> {
  await requireBucket(r);
  const md5 = contentMd5(r.headers);
  const text = await readSmallBody(r);
  if (md5 && !createHash('md5').update(text, 'utf8').digest().equals(md5)) {
    throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.', 400);
  }
  const rules = parseCorsConfiguration(text);
  if ((await r.deps.store.putBucketCors(r.bucket!, rules)) === 'missing') throw s3Error('NoSuchBucket', 404, { BucketName: r.bucket! });
  return new Response(null, { status: 200 });
}

/** GET /bucket?cors: the rules, or NoSuchCORSConfiguration (404). */
export async function getBucketCors(r: S3Request): Promise<Response> {
  await requireBucket(r);
  const rules = await r.deps.store.getBucketCors(r.bucket!);
  if (!rules) throw new S3Error('NoSuchCORSConfiguration', 'The CORS configuration does not exist', 404, { BucketName: r.bucket! });
  return new Response(corsConfigurationXml(rules), { status: 200, headers: { 'content-type': 'application/xml' } });
}

/** DELETE /bucket?cors: removes the rules (204 also when there were none). */
export async function deleteBucketCors(r: S3Request): Promise<Response> {
  await requireBucket(r);
  await r.deps.store.putBucketCors(r.bucket!, null);
  return new Response(null, { status: 204 });
}
