/**
 * Which S3 operation a request is: by method, by whether the path names a bucket or an object, and by the
 * query's subresources (`?uploads`, `?uploadId`, `?delete`, `?list-type=2`, ...), as S3 dispatches.
 */
import type { S3Request } from './context.js';
import { S3Error, s3Error } from './errors.js';
import * as buckets from './operations/buckets.js';
import * as listing from './operations/listing.js';
import * as objects from './operations/objects.js';
import * as multipart from './operations/multipart.js';
import * as tagging from './operations/tagging.js';
import * as cors from './operations/cors.js';
import * as lifecycle from './operations/lifecycle.js';
import * as attributes from './operations/attributes.js';
import { refuseUnsupportedHeaders } from './unsupported-headers.js';
import { checkQueryParams, checkVersionId, subresourceOf } from './query-params.js';

/** One operation: its name (logged) and its handler. */
export interface Operation {
  name: string;
  run(r: S3Request): Promise<Response>;
}

const op = (name: string, run: (r: S3Request) => Promise<Response>): Operation => ({ name, run });

/**
 * The operation for a request; MethodNotAllowed or NotImplemented when there is none. Every query parameter
 * must be one the chosen operation reads (`query-params.ts`), so an unknown subresource never reaches the
 * plain operation of its method.
 */
export function route(r: S3Request): Operation {
  let chosen: Operation;
  try {
    chosen = choose(r);
  } catch (err) {
    const sub = err instanceof S3Error && err.code === 'MethodNotAllowed' ? subresourceOf(r.query, IMPLEMENTED) : undefined;
    if (sub !== undefined) throw new S3Error('NotImplemented', `${r.req.method} on the subresource ?${sub} is not implemented by Stratus.`, 501);
    throw err;
  }
  if (!chosen.name.includes('?')) checkQueryParams(chosen.name, r.query, r.bucket === undefined ? 'service' : r.key === undefined ? 'bucket' : 'object', r.req.method);
  checkVersionId(r.query);
  refuseUnsupportedHeaders(chosen.name, r.headers);
  return chosen;
}

/** Subresources some operation here reads: with another method they are MethodNotAllowed, not NotImplemented. */
const IMPLEMENTED = new Set(['cors', 'lifecycle', 'delete', 'uploads', 'uploadId', 'location', 'versions', 'list-type', 'partNumber', 'versionId', 'tagging', 'attributes']);

function choose(r: S3Request): Operation {
  const method = r.req.method;
  const q = r.query;
  if (r.bucket === undefined) {
    if (method === 'GET') return op('ListBuckets', buckets.listBuckets);
    throw s3Error('MethodNotAllowed', 405);
  }
  if (r.key === undefined) {
    if (q.has('cors')) {
      if (method === 'GET') return op('GetBucketCors', cors.getBucketCors);
      if (method === 'PUT') return op('PutBucketCors', cors.putBucketCors);
      if (method === 'DELETE') return op('DeleteBucketCors', cors.deleteBucketCors);
      throw s3Error('MethodNotAllowed', 405);
    }
    if (q.has('lifecycle')) {
      if (method === 'GET') return op('GetBucketLifecycleConfiguration', lifecycle.getBucketLifecycle);
      if (method === 'PUT') return op('PutBucketLifecycleConfiguration', lifecycle.putBucketLifecycle);
      if (method === 'DELETE') return op('DeleteBucketLifecycle', lifecycle.deleteBucketLifecycle);
      throw s3Error('MethodNotAllowed', 405);
    }
    switch (method) {
      case 'GET':
        if (q.has('location')) return op('GetBucketLocation', buckets.getBucketLocation);
        if (q.has('versioning')) return op('GetBucketVersioning', buckets.getBucketVersioning);
        if (q.has('uploads')) return op('ListMultipartUploads', multipart.listMultipartUploads);
        if (q.has('versions')) return op('ListObjectVersions', listing.listObjectVersions);
        if (q.get('list-type') === '2') return op('ListObjectsV2', listing.listObjectsV2);
        if (q.has('list-type')) throw new S3Error('InvalidArgument', 'Invalid List Type specified in Request', 400);
        return op('ListObjects', listing.listObjectsV1);
      case 'HEAD': return op('HeadBucket', buckets.headBucket);
      case 'PUT': return op('CreateBucket', buckets.createBucket);
      case 'DELETE': return op('DeleteBucket', buckets.deleteBucket);
      case 'POST':
        if (q.has('delete')) return op('DeleteObjects', objects.deleteObjects);
        break;
    }
    throw s3Error('MethodNotAllowed', 405);
  }
  if (q.has('tagging')) {
    if (method === 'GET') return op('GetObjectTagging', tagging.getObjectTagging);
    if (method === 'DELETE') return op('DeleteObjectTagging', tagging.deleteObjectTagging);
    return op('Object?tagging', async () => buckets.notImplemented('Storing object tags'));
  }
  switch (method) {
    case 'GET':
      if (q.has('uploadId')) return op('ListParts', multipart.listParts);
      if (q.has('attributes')) return op('GetObjectAttributes', attributes.getObjectAttributes);
      return op('GetObject', objects.getObject);
    case 'HEAD': return op('HeadObject', objects.headObject);
    case 'PUT':
      if (q.has('uploadId') || q.has('partNumber')) {
        if (r.headers.has('x-amz-copy-source')) return op('UploadPartCopy', multipart.uploadPartCopy);
        if (!q.has('uploadId')) throw new S3Error('InvalidArgument', 'uploadId is required with partNumber.', 400);
        return op('UploadPart', multipart.uploadPart);
      }
      if (r.headers.has('x-amz-copy-source')) return op('CopyObject', objects.copyObject);
      return op('PutObject', objects.putObject);
    case 'DELETE':
      if (q.has('uploadId')) return op('AbortMultipartUpload', multipart.abortMultipartUpload);
      return op('DeleteObject', objects.deleteObject);
    case 'POST':
      if (q.has('uploads')) return op('CreateMultipartUpload', multipart.createMultipartUpload);
      if (q.has('uploadId')) return op('CompleteMultipartUpload', multipart.completeMultipartUpload);
      break;
  }
  throw s3Error('MethodNotAllowed', 405);
}
