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
import { S3Error, errorResponse, faultToS3Error } from './errors.js';
import { IncidentLog } from '../shared/incident-log.js';
import { S3AuthError, claimedAccessKeyId, verifySigV4, type SignedRequestInfo } from './sigv4.js';
import { authorizeOperation } from './access.js';
import { route } from './router.js';
import { addressOf } from './addressing.js';
import { preflight, withCorsHeaders } from './cors-edge.js';
import { noteRequest } from '../ops/request-notes.js';

/** Builds the handler. */
export function createS3Handler(deps: S3Deps): (req: Request) => Promise<Response> {
  const unexpected = new IncidentLog(deps.logger.child({ component: 's3' }));
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
        const { auth, principal } = await authenticate(deps, req);
        noteRequest(req, { accessKeyId: auth.accessKeyId, accountId: (principal as { accountIds?: string[] }).accountIds?.[0] });
        const r: S3Request = { req, url, query: url.searchParams, headers: req.headers, auth, principal, bucket, key, requestId, deps };
        const chosen = route(r);
        operation = chosen.name;
        authorizeOperation(r, chosen.name);
        res = await chosen.run(r);
      }
      res.headers.set('x-amz-request-id', requestId);
      deps.logger.debug({ operation, resource, status: res.status, requestId }, 's3 request');
    } catch (caught) {
      const err = faultToS3Error(caught) ?? caught;
      if (err instanceof S3Error) {
        deps.logger.debug({ operation, resource, code: err.code, requestId }, 's3 request failed');
        res = errorResponse(err, resource, requestId, head);
      } else {
        unexpected.failure(`s3 ${operation} failed unexpectedly: ${(err as Error).message}`, err, `s3 ${operation} failed unexpectedly (request ${requestId} ${resource})`);
        res = errorResponse(new S3Error('InternalError', 'We encountered an internal error. Please try again.', 500), resource, requestId, head);
      }
    }
    noteRequest(req, { route: operation, requestId });
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
