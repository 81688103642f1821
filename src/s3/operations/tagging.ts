/**
 * Object tagging, as far as buckets without tags go: GetObjectTagging answers an empty tag set for an object
 * that exists and DeleteObjectTagging succeeds (there is nothing to delete). Storing tags is not supported.
 * aws-cli asks for the source's tags before every multipart copy (`aws s3 cp`/`mv` of an object at or above
 * its multipart threshold), so answering NotImplemented here would fail those copies.
 */
import { existingBucket, keyOf, type S3Request } from '../context.js';
import { s3Error, toS3Error } from '../errors.js';
import { xmlDocument } from '../xml.js';

/** NoSuchKey (404) unless the request's object exists. */
async function requireObject(r: S3Request): Promise<void> {
  const bucket = await existingBucket(r);
  const obj = await bucket.head(keyOf(r)).catch((err: unknown) => { throw toS3Error(err); });
  if (!obj) throw s3Error('NoSuchKey', 404, { Key: keyOf(r) });
}

/** GET /bucket/key?tagging: an empty `TagSet`. */
export async function getObjectTagging(r: S3Request): Promise<Response> {
  await requireObject(r);
  const body = xmlDocument('Tagging', { TagSet: {} }, true);
  return new Response(body, { status: 200, headers: { 'content-type': 'application/xml' } });
}

/** DELETE /bucket/key?tagging: 204 (objects carry no tags). */
export async function deleteObjectTagging(r: S3Request): Promise<Response> {
  await requireObject(r);
  return new Response(null, { status: 204 });
}
