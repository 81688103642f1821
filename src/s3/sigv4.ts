/**
 * AWS Signature Version 4 verification for the S3 edge: the `Authorization` header and presigned URLs.
 *
 * References: https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html (header),
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html (presigned), and
 * `@smithy/signature-v4`, which `@aws-sdk/client-s3` signs with (`uriEscapePath: false` for S3).
 *
 * Invariants:
 * - S3 signs the path exactly as sent: no dot-segment normalisation, no double encoding. The path is taken
 *   from the URL string by hand (never `new URL`, which rewrites it). A second candidate, the path
 *   re-encoded per RFC 3986 segment by segment, covers clients and proxies that send characters raw
 *   which the signer encoded (or encode ones it kept). Likewise `+` in the query is tried both as a
 *   literal plus (RFC 3986, what the SDKs send) and as a space, and non-ASCII header bytes both as the
 *   Latin-1 text Node gives us (UTF-8 hashed: Node/Python clients) and as raw bytes (Go clients).
 *   Every candidate is the same resource, so accepting any of them grants nothing more.
 * - Every `x-amz-*` header present and `host` must be signed (S3 answers `AccessDenied`, HeadersNotSigned).
 * - Signatures are compared in constant time; nothing is cached, so there is no secret kept beyond a call.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalQuery, normalisePath, parseQuery, splitUrl } from './sigv4-url.js';

/** An S3 authentication failure: `code` is the S3 error code, `status` the HTTP status. */
export class S3AuthError extends Error {
  /** Extra elements S3 puts in the error XML (`StringToSign`, `CanonicalRequest`, `HeadersNotSigned`...). */
  readonly details: Record<string, string>;

  constructor(
    readonly code: string,
    message: string,
    readonly status = 403,
    details: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'S3AuthError';
    this.details = details;
  }
}

/** What a verified request was signed with; the chunk decoder and payload checks need it. */
export interface SignedRequestInfo {
  accessKeyId: string;
  region: string;
  /** `YYYYMMDDTHHMMSSZ`. */
  amzDate: string;
  /** `date/region/s3/aws4_request`. */
  scope: string;
  signingKey: Buffer;
  /** The request's (seed) signature, lowercase hex. */
  signature: string;
  /** `x-amz-content-sha256` as sent (a marker or a lowercase hex SHA-256), or `UNSIGNED-PAYLOAD` when presigned. */
  payloadHash: string;
  presigned: boolean;
  /** Lowercase names of the signed headers. */
  signedHeaders: string[];
}

/** SHA-256 of the empty string, hex. */
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const ALGORITHM = 'AWS4-HMAC-SHA256';
const MAX_SKEW_MS = 15 * 60_000;
const MAX_EXPIRES = 604_800;
const PAYLOAD_MARKERS = new Set([
  'UNSIGNED-PAYLOAD',
  'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
  'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
  'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
]);
const MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your key and signing method.';

/** Hex SHA-256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hex HMAC-SHA256 of `data` (UTF-8) under `key`. */
export function hmacHex(key: Uint8Array | string, data: string): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

/** The SigV4 signing key: HMAC chain over date (`YYYYMMDD`), region, service and `aws4_request`. */
export function signingKeyFor(secret: string, date: string, region: string, service = 's3'): Buffer {
  let key: Buffer = Buffer.from(`AWS4${secret}`, 'utf8');
  for (const part of [date, region, service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return key;
}

/** Constant-time equality of two signatures (hex strings); false when the lengths differ. */
export function signaturesEqual(expected: string, provided: string): boolean {
  const a = Buffer.from(expected, 'latin1');
  const b = Buffer.from(provided, 'latin1');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The access key id a request claims (header `Credential=` or presigned `X-Amz-Credential`), unverified. */
export function claimedAccessKeyId(req: { url: string; headers: Headers }): string | undefined {
  const header = /Credential=([^/,\s]+)\//.exec(req.headers.get('authorization') ?? '')?.[1];
  if (header !== undefined) return header;
  const credential = new URL(req.url).searchParams.get('X-Amz-Credential');
  return credential?.split('/')[0] || undefined;
}

/**
 * Verifies a SigV4-signed S3 request (header or presigned) and returns what it was signed with.
 * `url` is the full URL as received; `now` is the server's clock. Throws `S3AuthError`; a request with
 * neither an `Authorization` header nor presign parameters throws `AccessDenied` (the caller decides
 * about anonymous access). Checking a hex payload hash against the body is the caller's job.
 */
export function verifySigV4(
  req: { method: string; url: string; headers: Headers },
  secretFor: (accessKeyId: string) => string | undefined,
  now: Date,
): SignedRequestInfo {
  const url = splitUrl(req.url);
  const query = parseQuery(url.query);
  const authorization = req.headers.get('authorization');
  const presign = query.has('X-Amz-Algorithm') || query.has('X-Amz-Credential') || query.has('X-Amz-Signature');
  if (authorization !== null && presign) {
    throw new S3AuthError(
      'InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
      400,
    );
  }
  if (authorization === null && !presign) {
    if (query.has('Signature') && query.has('AWSAccessKeyId')) throw unsupported();
    throw new S3AuthError('AccessDenied', 'Access Denied');
  }
  const parsed = presign ? parsePresigned(query, req.headers, now) : parseHeaderAuth(authorization!, req.headers, now);

  const secret = secretFor(parsed.accessKeyId);
  if (secret === undefined) {
    throw new S3AuthError('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', 403, {
      AWSAccessKeyId: parsed.accessKeyId,
    });
  }
  const unsigned = ['host', ...[...req.headers.keys()].filter((n) => n.startsWith('x-amz-'))].filter(
    (n) => !parsed.signedHeaders.includes(n),
  );
  if (unsigned.length > 0) {
    throw new S3AuthError('AccessDenied', 'There were headers present in the request which were not signed', 403, {
      HeadersNotSigned: unsigned.join(', '),
    });
  }

  const signingKey = signingKeyFor(secret, parsed.scope.slice(0, 8), parsed.region);
  const headerLines = parsed.signedHeaders.map((name) => {
    const value = req.headers.get(name) ?? (name === 'host' ? url.host : '');
    return `${name}:${value.replace(/[\r\n]/g, ' ').replace(/[ \t]+/g, ' ').replace(/^ | $/g, '')}\n`;
  });
  const rawBytes = headerLines.some((line) => /[^\x00-\x7f]/.test(line));
  let first: { canonical: string; stringToSign: string } | undefined;
  for (const path of unique([url.path, normalisePath(url.path)])) {
    for (const plus of url.query.includes('+') ? [false, true] : [false]) {
      const canonical = [
        req.method.toUpperCase(),
        path,
        canonicalQuery(url.query, plus),
        headerLines.join(''),
        parsed.signedHeaders.join(';'),
        parsed.payloadHash,
      ].join('\n');
      for (const latin1 of rawBytes ? [false, true] : [false]) {
        const hashed = sha256Hex(latin1 ? Buffer.from(canonical, 'latin1') : canonical);
        const stringToSign = `${ALGORITHM}\n${parsed.amzDate}\n${parsed.scope}\n${hashed}`;
        first ??= { canonical, stringToSign };
        if (signaturesEqual(hmacHex(signingKey, stringToSign), parsed.signature)) {
          const { accessKeyId, region, amzDate, scope, signature, payloadHash, signedHeaders } = parsed;
          return { accessKeyId, region, amzDate, scope, signingKey, signature, payloadHash, presigned: presign, signedHeaders };
        }
      }
    }
  }
  throw new S3AuthError('SignatureDoesNotMatch', MISMATCH, 403, {
    AWSAccessKeyId: parsed.accessKeyId,
    StringToSign: first!.stringToSign,
    SignatureProvided: parsed.signature,
    CanonicalRequest: withoutKeys(first!.canonical),
  });
}

/** Signed headers and query parameters whose values are keys: never shown in an error document. */
const KEY_FIELDS = /^(x-amz-server-side-encryption-customer-key|x-amz-copy-source-server-side-encryption-customer-key|x-amz-security-token)$/i;

/**
 * The canonical request of a `SignatureDoesNotMatch` answer with the values of SSE-C keys and session tokens
 * replaced by `[redacted]` (S3 shows them; Stratus never puts a key in an error body). Their MD5 headers stay.
 */
export function withoutKeys(canonical: string): string {
  const lines = canonical.split('\n');
  return lines.map((line, i) => {
    if (i === 2) {
      return line.split('&').map((pair) => {
        const eq = pair.indexOf('=');
        return eq > 0 && KEY_FIELDS.test(decodeURIComponentSafe(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=[redacted]` : pair;
      }).join('&');
    }
    const colon = line.indexOf(':');
    return i > 2 && colon > 0 && KEY_FIELDS.test(line.slice(0, colon)) ? `${line.slice(0, colon)}:[redacted]` : line;
  }).join('\n');
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface ParsedAuth {
  accessKeyId: string;
  region: string;
  scope: string;
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  payloadHash: string;
}

function parseHeaderAuth(value: string, headers: Headers, now: Date): ParsedAuth {
  const malformed = (why: string) =>
    new S3AuthError('AuthorizationHeaderMalformed', `The authorization header is malformed; ${why}`, 400);
  const match = /^\s*(\S+)\s*(.*)$/s.exec(value);
  const algorithm = match?.[1] ?? '';
  if (algorithm !== ALGORITHM) {
    if (algorithm === 'AWS' || algorithm.startsWith('AWS4-')) throw unsupported();
    throw new S3AuthError('InvalidArgument', 'Unsupported Authorization Type', 400);
  }
  const fields = new Map<string, string>();
  for (const piece of match![2]!.split(',')) {
    const eq = piece.indexOf('=');
    if (eq > 0) fields.set(piece.slice(0, eq).trim(), piece.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    throw malformed('the authorization header requires three components: Credential, SignedHeaders, and Signature.');
  }
  const cred = parseCredential(credential, malformed);

  const payloadHash = headers.get('x-amz-content-sha256');
  if (payloadHash === null) {
    throw new S3AuthError('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256', 400);
  }
  const amzHeader = headers.get('x-amz-date');
  const when = amzHeader !== null ? parseAmzDate(amzHeader) : parseHttpDate(headers.get('date'));
  if (when === undefined) {
    throw new S3AuthError('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  }
  const amzDate = formatAmzDate(when);
  if (cred.date !== amzDate.slice(0, 8)) {
    throw malformed(`Invalid credential date "${cred.date}". This date is not the same as X-Amz-Date: "${amzDate.slice(0, 8)}".`);
  }
  if (Math.abs(now.getTime() - when.getTime()) > MAX_SKEW_MS) {
    throw new S3AuthError('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.', 403, {
      RequestTime: amzHeader ?? headers.get('date') ?? '',
      ServerTime: now.toISOString(),
      MaxAllowedSkewMilliseconds: String(MAX_SKEW_MS),
    });
  }
  return {
    ...cred,
    amzDate,
    signedHeaders: parseSignedHeaders(signedHeaders),
    signature,
    payloadHash: checkPayloadHash(payloadHash),
  };
}

function parsePresigned(query: Map<string, string>, headers: Headers, now: Date): ParsedAuth {
  const fail = (why: string) => new S3AuthError('AuthorizationQueryParametersError', why, 400);
  const algorithm = query.get('X-Amz-Algorithm');
  const credential = query.get('X-Amz-Credential');
  const date = query.get('X-Amz-Date');
  const expires = query.get('X-Amz-Expires');
  const signedHeaders = query.get('X-Amz-SignedHeaders');
  const signature = query.get('X-Amz-Signature');
  if (!algorithm || !credential || !date || !expires || !signedHeaders || !signature) {
    throw fail(
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    );
  }
  if (algorithm !== ALGORITHM) throw fail('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const cred = parseCredential(credential, (why) => fail(`Error parsing the X-Amz-Credential parameter; ${why}`));
  const when = parseAmzDate(date);
  if (when === undefined) {
    throw fail("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  }
  if (cred.date !== date.slice(0, 8)) {
    throw fail(
      `Error parsing the X-Amz-Credential parameter; Invalid credential date "${cred.date}". This date is not the same as X-Amz-Date: "${date.slice(0, 8)}".`,
    );
  }
  if (!/^\d{1,7}$/.test(expires)) throw fail('X-Amz-Expires should be a number');
  const seconds = Number(expires);
  if (seconds < 1) throw fail('X-Amz-Expires must be non-negative');
  if (seconds > MAX_EXPIRES) throw fail('X-Amz-Expires must be less than a week (in seconds) that is; 604800');
  if (when.getTime() - now.getTime() > MAX_SKEW_MS) throw new S3AuthError('AccessDenied', 'Request is not valid yet');
  if (now.getTime() > when.getTime() + seconds * 1000) {
    throw new S3AuthError('AccessDenied', 'Request has expired', 403, {
      'X-Amz-Expires': expires,
      Expires: new Date(when.getTime() + seconds * 1000).toISOString(),
      ServerTime: now.toISOString(),
    });
  }
  const names = parseSignedHeaders(signedHeaders);
  const headerHash = names.includes('x-amz-content-sha256') ? headers.get('x-amz-content-sha256') : null;
  const payloadHash = query.get('X-Amz-Content-Sha256') ?? headerHash ?? 'UNSIGNED-PAYLOAD';
  return { ...cred, amzDate: date, signedHeaders: names, signature, payloadHash: checkPayloadHash(payloadHash) };
}

function parseCredential(value: string, fail: (why: string) => S3AuthError) {
  // Never echo a control byte into an error document (XML cannot carry most of them).
  if (/[\x00-\x1f\x7f]/.test(value)) throw fail('the Credential holds a control character.');
  const parts = value.split('/');
  const [accessKeyId, date, region, service, terminal] = parts;
  if (parts.length !== 5 || parts.some((p) => p === '')) {
    throw fail('the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".');
  }
  if (!/^\d{8}$/.test(date!)) throw fail(`Invalid credential date "${date}".`);
  if (service !== 's3') throw fail(`incorrect service "${service}". This endpoint belongs to "s3".`);
  if (terminal !== 'aws4_request') throw fail(`incorrect terminal "${terminal}". This endpoint uses "aws4_request".`);
  return { accessKeyId: accessKeyId!, date: date!, region: region!, scope: parts.slice(1).join('/') };
}

function parseSignedHeaders(value: string): string[] {
  return value.split(';').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
}

function checkPayloadHash(value: string): string {
  if (PAYLOAD_MARKERS.has(value) || /^[0-9a-f]{64}$/.test(value)) return value;
  throw new S3AuthError(
    'InvalidArgument',
    'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or a valid sha256 value.',
    400,
  );
}

function unsupported(): S3AuthError {
  return new S3AuthError(
    'InvalidRequest',
    'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.',
    400,
  );
}

/** `YYYYMMDDTHHMMSSZ` to a Date, or undefined when it is not one. */
function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const date = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
  return formatAmzDate(date) === value ? date : undefined;
}

function parseHttpDate(value: string | null): Date | undefined {
  if (value === null) return undefined;
  const compact = parseAmzDate(value);
  if (compact) return compact;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

function formatAmzDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
