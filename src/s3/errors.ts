/**
 * Errors of the S3-compatible edge: `S3Error` carries an S3 error code and HTTP status and renders as S3's XML
 * error document. Failures of the bucket binding (its `"<action>: <message> (<code>)"` errors with a numeric
 * `code`, and its client-side TypeError/RangeError) are translated by {@link toS3Error}.
 */
import { StoreCodes } from '../store/errors.js';
import { asFault, RETRY_AFTER_SECONDS, StorageFullError } from '../shared/faults.js';
import { xmlDocument } from './xml.js';
import type { RateLimitedError } from '../limits/rate-limited.js';

/** An error answered as `<Error><Code>…</Code><Message>…</Message>…</Error>`. */
export class S3Error extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    /** Extra elements of the error document (e.g. `Key`, `BucketName`). */
    readonly extra: Record<string, string> = {},
    /** Seconds for `Retry-After` on a 503 (default {@link RETRY_AFTER_SECONDS}). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

/** S3's wording of the common errors, by code. */
export const S3Messages = {
  NoSuchBucket: 'The specified bucket does not exist.',
  NoSuchKey: 'The specified key does not exist.',
  BucketNotEmpty: 'The bucket you tried to delete is not empty.',
  BucketAlreadyOwnedByYou: 'Your previous request to create the named bucket succeeded and you already own it.',
  InvalidBucketName: 'The specified bucket is not valid.',
  PreconditionFailed: 'At least one of the pre-conditions you specified did not hold.',
  MalformedXML: 'The XML you provided was not well-formed or did not validate against our published schema.',
  MissingContentLength: 'You must provide the Content-Length HTTP header.',
  NotImplemented: 'A header or query you provided implies functionality that is not implemented.',
  MethodNotAllowed: 'The specified method is not allowed against this resource.',
  XAmzContentSHA256Mismatch: "The provided 'x-amz-content-sha256' header does not match what was computed.",
  SlowDown: 'Please reduce your request rate.',
} as const;

/** Shorthand for the errors above. */
export function s3Error(code: keyof typeof S3Messages, status: number, extra: Record<string, string> = {}): S3Error {
  return new S3Error(code, S3Messages[code], status, extra);
}

/** S3 code and status of each binding code (the binding's code names are S3's). */
const BY_BINDING_CODE = new Map<number, { code: string; status: number }>(
  Object.entries(StoreCodes).map(([name, entry]) => [entry.code, { code: name, status: entry.status }]),
);

/** The binding's message without its `"<action>: "` prefix and `" (<code>)"` suffix. */
function bindingMessage(message: string): string {
  return message.replace(/^[A-Za-z]+: /, '').replace(/ \(\d+\)$/, '');
}

/**
 * Translates a failure of a binding call into an S3Error: service errors by their numeric code, argument
 * errors as InvalidArgument (400). Anything else is rethrown for the edge to log and answer InternalError.
 */
export function toS3Error(err: unknown): S3Error {
  if (err instanceof S3Error) return err;
  const fault = faultToS3Error(err);
  if (fault) return fault;
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code === 'number') {
    const known = BY_BINDING_CODE.get(code);
    if (known && code !== StoreCodes.InternalError.code) return new S3Error(known.code, bindingMessage(err.message), known.status);
  }
  if (err instanceof TypeError || err instanceof RangeError) return new S3Error('InvalidArgument', err.message, 400);
  throw err;
}

/**
 * A backing-store fault as S3 answers it: 503 `ServiceUnavailable` while a store is away (the SDKs retry it
 * with backoff; the edge adds `Retry-After`), 507 `InsufficientStorage` when the disk is full (not retried).
 */
export function faultToS3Error(err: unknown): S3Error | undefined {
  const fault = asFault(err, 'database');
  if (!fault) return undefined;
  return fault instanceof StorageFullError
    ? new S3Error('InsufficientStorage', fault.message, 507)
    : new S3Error('ServiceUnavailable', fault.message, 503);
}

/** A request refused by a limit (limits/rate-limited.ts) as S3 refuses a client that is too fast: 503 `SlowDown`. */
export function slowDown(err: RateLimitedError): S3Error {
  return new S3Error('SlowDown', S3Messages.SlowDown, 503, {}, err.retryAfterSeconds);
}

/** The XML error response. HEAD responses carry no body, as S3 does. */
export function errorResponse(err: S3Error, resource: string, requestId: string, head = false): Response {
  const body = xmlDocument('Error', { Code: err.code, Message: err.message, ...err.extra, Resource: resource, RequestId: requestId });
  const headers = new Headers({ 'content-type': 'application/xml', 'x-amz-request-id': requestId });
  if (err.status === 503) headers.set('retry-after', String(err.retryAfterSeconds ?? RETRY_AFTER_SECONDS));
  return new Response(head ? null : body, { status: err.status, headers });
}

/** The S3 answer to a request Node's HTTP parser refused (`http/http-listener.ts`), as an S3 error document. */
export function s3ParserError(status: number): { contentType: string; body: string } {
  const [code, message] = status === 431
    ? ['RequestHeaderSectionTooLarge', 'Your request header section exceeds the maximum allowed size.']
    : status === 408 ? ['RequestTimeout', 'Your socket connection to the server was not read from or written to within the timeout period.']
      : ['InvalidRequest', 'The request is not valid HTTP: a header holds a byte that no header may hold, or the request line is malformed.'];
  return { contentType: 'application/xml', body: xmlDocument('Error', { Code: code, Message: message }) };
}
