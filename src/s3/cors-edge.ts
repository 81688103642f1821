/**
 * CORS at the S3 edge, from the bucket's stored rules (`cors.ts` evaluates them). A preflight (`OPTIONS` on a
 * bucket or object URL) needs no signature, as in S3: 200 with the `Access-Control-Allow-*` headers when a rule
 * allows the origin, method and headers asked for, else 403 `AccessForbidden` ("CORSResponse: …"). Any other
 * answer to a request carrying `Origin`, errors included, gets the allow and expose headers of the first rule
 * matching the origin and method.
 */
import type { S3Deps } from './context.js';
import { S3Error, s3Error } from './errors.js';
import { CORS_METHODS } from './cors-config.js';
import { corsHeaders, CORS_VARY, preflightRule, requestedHeaders, requestRule } from './cors.js';

const NOT_ALLOWED =
  "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.";

/** Answers `OPTIONS` on `bucket` (and `key`); throws the S3Error to answer when the request is not allowed. */
export async function preflight(deps: S3Deps, req: Request, bucket: string | undefined, key: string | undefined): Promise<Response> {
  if (bucket === undefined) throw s3Error('MethodNotAllowed', 405);
  const origin = req.headers.get('origin');
  if (origin === null) throw new S3Error('BadRequest', 'Insufficient information. Origin request header needed.', 400);
  const method = req.headers.get('access-control-request-method');
  if (method === null || !CORS_METHODS.has(method)) throw new S3Error('BadRequest', `Invalid Access-Control-Request-Method: ${method ?? 'null'}`, 400);
  if (!(await deps.store.bucketInfo(bucket))) throw s3Error('NoSuchBucket', 404, { BucketName: bucket });
  const forbidden = (message: string) =>
    new S3Error('AccessForbidden', message, 403, { Method: method, ResourceType: key === undefined ? 'BUCKET' : 'OBJECT' });
  const rules = await deps.store.getBucketCors(bucket);
  if (!rules) throw forbidden('CORSResponse: CORS is not enabled for this bucket.');
  const headers = requestedHeaders(req.headers.get('access-control-request-headers'));
  const rule = preflightRule(rules, { origin, method, headers });
  if (!rule) throw forbidden(NOT_ALLOWED);
  return new Response(null, { status: 200, headers: corsHeaders(rule, origin, headers) });
}

/**
 * `res` with the CORS headers its request earns: none without `Origin` or rules; `Vary` whenever the bucket
 * has rules; the allow and expose headers when one matches. Never fails the request: a store error is logged.
 */
export async function withCorsHeaders(deps: S3Deps, req: Request, bucket: string | undefined, res: Response): Promise<Response> {
  const origin = req.headers.get('origin');
  if (origin === null || bucket === undefined) return res;
  let rules;
  try {
    rules = await deps.store.getBucketCors(bucket);
  } catch (err) {
    deps.logger.error({ err, bucket }, 's3 CORS rules could not be read');
    return res;
  }
  if (!rules) return res;
  const rule = requestRule(rules, origin, req.method);
  const add = rule ? corsHeaders(rule, origin) : { vary: CORS_VARY };
  try {
    for (const [name, value] of Object.entries(add)) res.headers.set(name, value);
    return res;
  } catch {
    // Immutable headers (a response passed through from elsewhere): copy it.
    const headers = new Headers(res.headers);
    for (const [name, value] of Object.entries(add)) headers.set(name, value);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}
