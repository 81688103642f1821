/**
 * The S3-compatible edge as one fetch handler: find the bucket and key (path-style `/bucket/key`, or
 * virtual-hosted `bucket.<domain>/key`: `addressing.ts`), verify
 * the SigV4 signature (header or presigned query), route to an operation, and answer failures as S3 XML
 * errors. Operations call only the bucket store's public API, so S3 and edge scripts share buckets,
 * objects and multipart uploads.
 */
import { randomBytes } from 'node:crypto';
import type { S3Deps, S3Request } from './context.js';
import { S3Error, errorResponse } from './errors.js';
import { S3AuthError, verifySigV4 } from './sigv4.js';
import { route } from './router.js';
import { addressOf } from './addressing.js';

/** Builds the handler. */
export function createS3Handler(deps: S3Deps): (req: Request) => Promise<Response> {
  return async (req) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    const url = new URL(req.url);
    const head = req.method === 'HEAD';
    let resource = url.pathname;
    let operation = 'unknown';
    try {
      const { bucket, key } = addressOf(url.hostname, url.pathname, deps.domain);
      resource = bucket === undefined ? '/' : key === undefined ? `/${bucket}` : `/${bucket}/${key}`;
      let auth;
      try {
        auth = verifySigV4({ method: req.method, url: req.url, headers: req.headers }, (id) => deps.secretFor(id), deps.now());
      } catch (err) {
        if (err instanceof S3AuthError) throw new S3Error(err.code, err.message, err.status, err.details);
        throw err;
      }
      const r: S3Request = { req, url, query: url.searchParams, headers: req.headers, auth, bucket, key, requestId, deps };
      const chosen = route(r);
      operation = chosen.name;
      const res = await chosen.run(r);
      res.headers.set('x-amz-request-id', requestId);
      deps.logger.debug({ operation, resource, status: res.status, requestId }, 's3 request');
      return res;
    } catch (err) {
      if (err instanceof S3Error) {
        deps.logger.debug({ operation, resource, code: err.code, requestId }, 's3 request failed');
        return errorResponse(err, resource, requestId, head);
      }
      deps.logger.error({ err, operation, resource, requestId }, 's3 request failed unexpectedly');
      return errorResponse(new S3Error('InternalError', 'We encountered an internal error. Please try again.', 500), resource, requestId, head);
    }
  };
}
