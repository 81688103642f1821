/**
 * The S3-compatible edge as one fetch handler: find the bucket and key (path-style `/bucket/key`, or
 * virtual-hosted `bucket.<domain>/key`: `addressing.ts`), verify
 * the SigV4 signature (header or presigned query) of the instance's key pair or of an API token's derived pair,
 * route to an operation, check what the key may do (`access.ts`), and answer failures as S3 XML
 * errors; apply the limits on abuse (limits/: failed authentications per client address, then the key
 * holder's request rate; both refuse with `SlowDown`, 503 with `Retry-After`, as S3 does); answer CORS
 * preflights without a signature and add CORS headers to answers (`cors-edge.ts`).
 * Operations call only the bucket store's public API, so S3 and edge scripts share buckets,
 * objects and multipart uploads.
 */
import { randomBytes } from 'node:crypto';
import type { S3Deps, S3HandlerDeps, S3Principal, S3Request } from './context.js';
import { S3Error, errorResponse, faultToS3Error, slowDown } from './errors.js';
import { RateLimitedError } from '../limits/rate-limited.js';
import { peerAddress } from '../limits/client-address.js';
import { IncidentLog } from '../shared/incident-log.js';
import { S3AuthError, claimedAccessKeyId, verifySigV4, type SignedRequestInfo } from './sigv4.js';
import { authorizeOperation, requestAccount } from './access.js';
import { route } from './router.js';
import { checkExpectedBucketOwner } from './expected-owner.js';
import { addressOf } from './addressing.js';
import { preflight, withCorsHeaders } from './cors-edge.js';
import { noteRequest } from '../http/request-notes.js';
import { headerWithControlByte, rawHeadersOf } from '../shared/header-bytes.js';

/** The dependencies of one request: the buckets of `accountId` only. */
function scoped(deps: S3HandlerDeps, accountId: string): S3Deps {
  const { store, defaultAccountId: _default, ...rest } = deps;
  return { ...rest, store: store.forAccount(accountId) };
}

/** Builds the handler. */
export function createS3Handler(deps: S3HandlerDeps): (req: Request, env?: unknown) => Promise<Response> {
  const unexpected = new IncidentLog(deps.logger.child({ component: 's3' }));
  return async (req, env) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    const url = new URL(req.url);
    const sent = asSent(req.url, env);
    const raw = rawHeadersOf(env);
    const badHeader = raw && headerWithControlByte(raw);
    if (badHeader !== undefined) {
      noteRequest(req, { requestId });
      return controlByteResponse(badHeader, url.pathname, requestId, req.method === 'HEAD');
    }
    const head = req.method === 'HEAD';
    const isPreflight = req.method === 'OPTIONS';
    let resource = url.pathname;
    let operation = isPreflight ? 'PreflightCors' : 'unknown';
    let bucket: string | undefined;
    let res: Response;
    // Until the key is known, the host's account (else the default one) answers CORS for this request.
    let view: S3Deps | undefined;
    try {
      const address = addressOf(url.hostname, sent.path, deps.domain);
      const key = address.key;
      bucket = address.bucket;
      view = scoped(deps, address.account ?? deps.defaultAccountId);
      resource = bucket === undefined ? '/' : key === undefined ? `/${bucket}` : `/${bucket}/${key}`;
      if (isPreflight) {
        res = await preflight(view, req, bucket, key);
      } else {
        refusePostForm(req, bucket, key);
        const { auth, principal } = await authenticateLimited(deps, req, sent.url, peerAddress(env));
        noteRequest(req, { accessKeyId: auth.accessKeyId });
        const accountId = requestAccount(principal, address.account, deps.defaultAccountId);
        noteRequest(req, { accountId });
        await deps.limits?.s3?.take(principal.subject ?? `key:${auth.accessKeyId}`, 's3');
        view = scoped(deps, accountId);
        const r: S3Request = { req, url, query: url.searchParams, headers: req.headers, auth, principal, accountId, bucket, key, requestId, deps: view };
        const chosen = route(r);
        operation = chosen.name;
        authorizeOperation(r, chosen.name);
        checkExpectedBucketOwner(r);
        res = await chosen.run(r);
      }
      res.headers.set('x-amz-request-id', requestId);
      deps.logger.debug({ operation, resource, status: res.status, requestId }, 's3 request');
    } catch (caught) {
      const err = faultToS3Error(caught) ?? (caught instanceof RateLimitedError ? slowDown(caught) : caught);
      if (err instanceof S3Error) {
        deps.logger.debug({ operation, resource, code: err.code, requestId }, 's3 request failed');
        res = errorResponse(err, resource, requestId, head);
      } else {
        unexpected.failure(`s3 ${operation} failed unexpectedly: ${(err as Error).message}`, err, `s3 ${operation} failed unexpectedly (request ${requestId} ${resource})`);
        res = errorResponse(new S3Error('InternalError', 'We encountered an internal error. Please try again.', 500), resource, requestId, head);
      }
    }
    noteRequest(req, { route: operation, requestId });
    return isPreflight || !view ? res : withCorsHeaders(view, req, bucket, res);
  };
}

/** S3 errors of a failed authentication the throttle counts: an unknown key id or a wrong signature. */
const FAILED_AUTHENTICATION = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch']);

/**
 * {@link authenticate} under the limits on abuse: an address cooling down after failed authentications is
 * refused before the signature is checked (SlowDown), and a failed authentication is counted (answered late
 * past half the limit).
 */
async function authenticateLimited(deps: S3HandlerDeps, req: Request, url: string, address: string | undefined): Promise<{ auth: SignedRequestInfo; principal: S3Principal }> {
  const throttle = deps.limits?.auth;
  if (!throttle) return authenticate(deps, req, url);
  await throttle.check(address, 's3');
  try {
    return await authenticate(deps, req, url);
  } catch (err) {
    if (err instanceof S3Error && FAILED_AUTHENTICATION.has(err.code)) await throttle.failed(address, 's3');
    throw err;
  }
}

/**
 * The verified signature of a request and who signed it; S3Error when it is missing or wrong. A signature
 * that does not match a remembered secret is checked once more against a fresh look-up, so a token rolled
 * on another node works here at once with its new value.
 */
async function authenticate(deps: S3HandlerDeps, req: Request, url: string): Promise<{ auth: SignedRequestInfo; principal: S3Principal }> {
  const claimed = claimedAccessKeyId(req);
  const session = req.headers.get('x-amz-security-token') ?? new URL(req.url).searchParams.get('X-Amz-Security-Token') ?? undefined;
  const verify = (principal: S3Principal | undefined) =>
    verifySigV4({ method: req.method, url, headers: req.headers }, (id) => (id === claimed ? principal?.secret : undefined), deps.now());
  let principal = claimed === undefined ? undefined : await deps.principalFor(claimed, session);
  try {
    try {
      return { auth: verify(principal), principal: principal! };
    } catch (err) {
      if (!(err instanceof S3AuthError) || err.code !== 'SignatureDoesNotMatch' || claimed === undefined) throw err;
      const fresh = await deps.principalFor(claimed, session, true);
      if (fresh?.secret === principal?.secret) throw err;
      principal = fresh;
      return { auth: verify(principal), principal: principal! };
    }
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

/**
 * The request's URL and path exactly as the client sent them. The web `Request` that `@hono/node-server` builds
 * resolves dot segments (`a/./b`, `a/../b`, also `%2E`) as WHATWG URLs do, but S3 keys may hold them and the
 * signature covers the path as sent, so both the key and the signature check read Node's raw request target.
 */
function asSent(requestUrl: string, env: unknown): { url: string; path: string } {
  const target = (env as { incoming?: { url?: unknown } } | undefined)?.incoming?.url;
  if (typeof target !== 'string' || !target.startsWith('/')) return { url: requestUrl, path: new URL(requestUrl).pathname };
  const query = target.indexOf('?');
  return { url: `${new URL(requestUrl).origin}${target}`, path: query < 0 ? target : target.slice(0, query) };
}

/**
 * The answer to a request whose header holds a control byte (`shared/header-bytes.ts`), before anything reads
 * the headers: 400 InvalidArgument naming the header, never its value (it may be a credential).
 */
function controlByteResponse(header: string, resource: string, requestId: string, head: boolean): Response {
  const err = new S3Error('InvalidArgument', 'A header value holds a control character.', 400, { ArgumentName: header });
  return errorResponse(err, resource, requestId, head);
}
