/**
 * Request headers that ask for something Stratus does not do. Accepting them and answering 200 would make the
 * client believe an object is locked, tagged, public or encrypted by the server when it is not, so they are
 * refused as production's object store refuses them: `501 NotImplemented` "Header '<name>' with value
 * '<value>' not implemented" (R2's wording; R2 marks ACLs, grants, tagging, object lock, SSE-S3/KMS and website
 * redirects unimplemented for PutObject, CopyObject and CreateMultipartUpload, and ACLs, grants and object lock
 * for CreateBucket: developers.cloudflare.com/r2/api/s3/api/). `x-amz-acl: private` is what every object is,
 * so it is accepted, as R2 accepts it.
 */
import { S3Error } from './errors.js';

/** Values of `x-amz-server-side-encryption` S3 knows; any other is InvalidArgument (400), as S3 answers. */
const SSE_VALUES = new Set(['AES256', 'aws:kms', 'aws:kms:dsse']);

const OBJECT_WRITES = new Set(['PutObject', 'CopyObject', 'CreateMultipartUpload']);

function notImplemented(name: string, value: string): S3Error {
  return new S3Error('NotImplemented', `Header '${name}' with value '${value}' not implemented`, 501, { Header: name });
}

function refuseAcl(headers: Headers): void {
  const acl = headers.get('x-amz-acl');
  if (acl !== null && acl !== 'private') throw notImplemented('x-amz-acl', acl);
  headers.forEach((value, name) => {
    if (name.startsWith('x-amz-grant-')) throw notImplemented(name, value);
  });
}

/** Throws NotImplemented (or InvalidArgument for a malformed value) for a header the operation cannot honour. */
export function refuseUnsupportedHeaders(operation: string, headers: Headers): void {
  if (operation === 'CreateBucket') {
    refuseAcl(headers);
    const lock = headers.get('x-amz-bucket-object-lock-enabled');
    if (lock !== null && lock.toLowerCase() !== 'false') throw notImplemented('x-amz-bucket-object-lock-enabled', lock);
    return;
  }
  if (!OBJECT_WRITES.has(operation)) return;
  refuseAcl(headers);
  const sse = headers.get('x-amz-server-side-encryption');
  if (sse !== null) {
    if (!SSE_VALUES.has(sse)) throw new S3Error('InvalidArgument', 'The encryption method specified is not supported', 400, { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: sse });
    throw notImplemented('x-amz-server-side-encryption', sse);
  }
  for (const name of [
    'x-amz-server-side-encryption-aws-kms-key-id', 'x-amz-server-side-encryption-context', 'x-amz-server-side-encryption-bucket-key-enabled',
    'x-amz-tagging', 'x-amz-object-lock-mode', 'x-amz-object-lock-retain-until-date', 'x-amz-object-lock-legal-hold',
    'x-amz-website-redirect-location',
  ]) {
    const value = headers.get(name);
    if (value !== null) throw notImplemented(name, value);
  }
  const tagging = headers.get('x-amz-tagging-directive');
  if (operation === 'CopyObject' && tagging !== null && tagging !== 'COPY') throw notImplemented('x-amz-tagging-directive', tagging);
}
