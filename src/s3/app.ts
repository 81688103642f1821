/**
 * The S3-compatible edge as one fetch handler: find the bucket and key (path-style `/bucket/key`, or
 * virtual-hosted `bucket.<domain>/key`: `addressing.ts`), verify
 * the SigV4 signature (header or presigned query) of the instance's key pair or of an API token's derived pair,
 * route to an operation, check what the key may do (`access.ts`), and answer failures as S3 XML
 * errors; answer CORS preflights without a signature and add CORS headers to answers (`cors-edge.ts`).
 * Operations call only the bucket store's public API, so S3 and edge scripts share buckets,
 * objects and multipart uploads.
 */
import { randomBytes } from 'node:crypto';
import type { S3Deps, S3Principal, S3Request } from './context.js';
import { S3Error, errorResponse } from './errors.js';
import { S3AuthError, claimedAccessKeyId, verifySigV4, type SignedRequestInfo } from './sigv4.js';
import { authorizeOperation } from './access.js';
import { route } from './router.js';
import { addressOf } from './addressing.js';
import { preflight, withCorsHeaders } from './cors-edge.js';

/** Builds the handler. */
export function createS3Handler(deps: S3Deps): (req: Request) => Promise<Response> {
  return async (req) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    const url = new URL(req.url);
    const head = req.method === 'HEAD';
    const isPreflight = req.method === 'OPTIONS';
    let resource = url.pathname;
    let operation = isPreflight ? 'PreflightCors' : 'unknown';
    let bucket: string | undefined;
    let res: Response;
    try {
      const address = addressOf(url.hostname, url.pathname, deps.domain);
      const key = address.key;
      bucket = address.bucket;
      resource = bucket === undefined ? '/' : key === undefined ? `/${bucket}` : `/${bucket}/${key}`;
      if (isPreflight) {
        res = await preflight(deps, req, bucket, key);
      } else {
        refusePostForm(req, bucket, key);
        const { auth, principal } = await authenticate(deps, req);
        const r: S3Request = { req, url, query: url.searchParams, headers: req.headers, auth, principal, bucket, key, requestId, deps };
        const chosen = route(r);
        operation = chosen.name;
        authorizeOperation(r, chosen.name);
        res = await chosen.run(r);
      }
      res.headers.set('x-amz-request-id', requestId);
      deps.logger.debug({ operation, resource, status: res.status, requestId }, 's3 request');
    } catch (err) {
      if (err instanceof S3Error) {
        deps.logger.debug({ operation, resource, code: err.code, requestId }, 's3 request failed');
        res = errorResponse(err, resource, requestId, head);
      } else {
        deps.logger.error({ err, operation, resource, requestId }, 's3 request failed unexpectedly');
        res = errorResponse(new S3Error('InternalError', 'We encountered an internal error. Please try again.', 500), resource, requestId, head);
      }
    }
    return isPreflight ? res : withCorsHeaders(deps, req, bucket, res);
  };
}

/** The verified signature of a request and who signed it; S3Error when it is missing or wrong. */
async function authenticate(deps: S3Deps, req: Request): Promise<{ auth: SignedRequestInfo; principal: S3Principal }> {
  const claimed = claimedAccessKeyId(req);
  const principal = claimed === undefined ? undefined : await deps.principalFor(claimed);
  try {
    const auth = verifySigV4({ method: req.method, url: req.url, headers: req.headers }, (id) => (id === claimed ? principal?.secret : undefined), deps.now());
    return { auth, principal: principal! };
  } catch (err) {
    if (err instanceof S3AuthError) throw new S3Error(err.code, err.message, err.status, err.details);
    throw err;
  }
}

/**
 * Browser form uploads (POST Object: `multipart/form-data` to a bucket, authorised by a signed policy in the
 * form rather than a request signature) are not implemented: said before authentication, which they lack.
 */
function refusePostForm(req: Request, bucket: string | undefined, key: string | undefined): void {
  if (req.method !== 'POST' || bucket === undefined || key !== undefined) return;
  if (!/^multipart\/form-data\b/i.test(req.headers.get('content-type') ?? '')) return;
  throw new S3Error('NotImplemented', 'POST Object (browser form uploads) is not implemented by Stratus.', 501);
}
