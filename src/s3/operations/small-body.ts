/** Request documents (XML bodies of DeleteObjects, CompleteMultipartUpload, CreateBucket) read whole, bounded. */
import { S3Error } from '../errors.js';
import type { S3Request } from '../context.js';
import { verifiedBody, type BodyChecksumOptions } from '../body.js';

/** Largest request document accepted (S3 caps DeleteObjects at 1000 keys of 1 KiB, about 2 MiB with markup). */
const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** The body as UTF-8 text, verified like any body (checksums, aws-chunked), at most 4 MiB. */
export async function readSmallBody(r: S3Request, options?: BodyChecksumOptions): Promise<string> {
  const declared = r.headers.get('x-amz-decoded-content-length') ?? r.headers.get('content-length');
  if (declared === null || !r.req.body) return '';
  if (Number(declared) > MAX_DOCUMENT_BYTES) throw new S3Error('MaxMessageLengthExceeded', 'Your request was too big.', 400);
  const body = verifiedBody(r.req, r.auth, options);
  try {
    return await new Response(body.stream).text();
  } catch (err) {
    throw body.failure() ?? err;
  }
}
