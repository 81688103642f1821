/**
 * The one parser of `x-amz-copy-source` (CopyObject, UploadPartCopy, and the access check that a copy's source
 * bucket is readable: `access.ts`). S3 takes the source as a URL-encoded `[/]bucket/key[?versionId=id]`
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html) and decodes it before splitting, so
 * every client form names the same object:
 *
 *  - `bucket/key`, `/bucket/key`, `bucket/dir/key%20x` (the key encoded, as the SDKs and aws-cli send it);
 *  - `bucket%2Fkey` or `%2Fbucket%2Fdir%2Fkey` (the whole value encoded: Terraform's AWS provider sends Go's
 *    `url.QueryEscape` of `bucket/key`, which also writes a space as `+`);
 *  - `bucket/key?versionId=null`: the query starts at the first literal `?` (an encoded `%3F` belongs to the
 *    key), and `versionId` is its only parameter.
 *
 * A `+` is a space, as S3 reads it (aws-cli once sent `+` unencoded and S3 answered NoSuchKey:
 * https://github.com/aws/aws-cli/issues/614); a literal `+` in a key travels as `%2B`. The value is decoded
 * once: `%25` is a `%` of the key.
 */
import { S3Error } from './errors.js';

/** The object a copy reads. */
export interface CopySource {
  bucket: string;
  key: string;
}

const refuse = (message: string, value: string): S3Error =>
  new S3Error('InvalidArgument', message, 400, { ArgumentName: 'x-amz-copy-source', ArgumentValue: value });

/** `x-amz-copy-source` as bucket and key; InvalidArgument (400) when it names no object or a version other than `null`. */
export function parseCopySource(value: string): CopySource {
  const query = value.indexOf('?');
  const rawPath = query < 0 ? value : value.slice(0, query);
  if (query >= 0) checkQuery(value.slice(query + 1), value);
  let path: string;
  try {
    path = decodeURIComponent(rawPath.replace(/\+/g, ' '));
  } catch {
    throw refuse('The copy source is not URL-encoded correctly.', value);
  }
  if (path.startsWith('/')) path = path.slice(1);
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1) throw refuse('Copy Source must mention the source bucket and key: sourcebucket/sourcekey.', value);
  return { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
}

/** The query of a copy source: only `versionId`, and only `null` (objects here have one version). */
function checkQuery(query: string, value: string): void {
  const params = new URLSearchParams(query);
  for (const name of params.keys()) {
    if (name !== 'versionId') throw refuse(`The copy source may carry only versionId, not ${name}.`, value);
  }
  const version = params.get('versionId');
  if (version !== null && version !== 'null') throw refuse('Invalid version id specified', value);
}
