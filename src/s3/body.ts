/**
 * The body of an S3 write (PutObject, UploadPart) as a stream of known length for the binding: aws-chunked
 * framing removed (chunk signatures verified when signed), and the payload's SHA-256 and any flexible checksum
 * (header or trailer) verified at the end. A failed check errors the stream before its end, so the binding
 * stores nothing; the caller then answers with {@link VerifiedBody.failure}.
 */
import { createHash } from 'node:crypto';
import { withKnownLength } from '../store/index.js';
import { decodeAwsChunked } from './aws-chunked.js';
import { S3AuthError, type SignedRequestInfo } from './sigv4.js';
import { S3Error, s3Error } from './errors.js';
import { checksumAlgorithm, runningChecksum, type ChecksumAlgorithm, type RunningChecksum } from './checksum.js';

/** `x-amz-checksum-*` headers that describe the checksum rather than carry one. */
const CHECKSUM_SETTINGS = new Set(['x-amz-checksum-type', 'x-amz-checksum-algorithm']);

/** A request body ready for the binding. */
export interface VerifiedBody {
  /** The decoded bytes; a failed check errors it. */
  stream: ReadableStream<Uint8Array>;
  /** Decoded length in bytes. */
  length: number;
  /** The check that failed, once the stream has errored because of it. */
  failure(): S3Error | undefined;
  /** The verified flexible checksum (algorithm and base64 value), once the stream has ended. */
  checksum(): { algorithm: ChecksumAlgorithm; value: string } | undefined;
}

async function* iterate(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function declaredLength(headers: Headers, name: string): number {
  const raw = headers.get(name);
  if (raw === null) throw s3Error('MissingContentLength', 411);
  if (!/^\d+$/.test(raw)) throw new S3Error('InvalidArgument', `${name} is not a valid length.`, 400);
  return Number(raw);
}

/** How {@link verifiedBody} treats flexible checksums. */
export interface BodyChecksumOptions {
  /**
   * The algorithm the body must carry (a multipart upload's): computed when the client sends no checksum, and a
   * checksum of another algorithm is refused (`InvalidRequest`), as S3 answers.
   */
  compute?: ChecksumAlgorithm | undefined;
  /** `x-amz-checksum-<algorithm>` headers describe something else (CompleteMultipartUpload: the object), not this body. */
  ignoreHeaders?: boolean;
}

/** Wraps the request's body; throws S3Error at once for missing lengths or bad checksum headers. */
export function verifiedBody(req: Request, auth: SignedRequestInfo, options: BodyChecksumOptions = {}): VerifiedBody {
  const headers = req.headers;
  const payload = auth.payloadHash;
  const streaming = payload.startsWith('STREAMING-');
  const length = declaredLength(headers, streaming ? 'x-amz-decoded-content-length' : 'content-length');
  let failure: S3Error | undefined;
  let verified: { algorithm: ChecksumAlgorithm; value: string } | undefined;

  // The flexible checksum: a header now, or a trailer the chunked body announces.
  let algorithm: ChecksumAlgorithm | undefined;
  let expected: string | undefined;
  const trailerName = headers.get('x-amz-trailer');
  if (trailerName !== null) {
    algorithm = checksumAlgorithm(trailerName);
    if (!algorithm) throw new S3Error('InvalidRequest', `The trailer ${trailerName} is not supported.`, 400);
  } else if (!options.ignoreHeaders) {
    headers.forEach((value, name) => {
      if (!name.startsWith('x-amz-checksum-') || CHECKSUM_SETTINGS.has(name)) return;
      const alg = checksumAlgorithm(name);
      if (!alg) throw new S3Error('InvalidRequest', `The checksum ${name} is not supported; use CRC32, CRC32C, CRC64NVME, SHA1 or SHA256.`, 400);
      algorithm = alg;
      expected = value;
    });
  }
  const computeOnly = algorithm === undefined && options.compute !== undefined;
  if (options.compute && algorithm && algorithm !== options.compute) {
    throw new S3Error('InvalidRequest', `Checksum Type mismatch occurred, expected checksum Type: ${options.compute}, actual checksum Type: ${algorithm}`, 400);
  }
  if (computeOnly) algorithm = options.compute;
  const running: RunningChecksum | undefined = algorithm ? runningChecksum(algorithm) : undefined;
  const payloadSha = /^[0-9a-f]{64}$/.test(payload) ? createHash('sha256') : undefined;

  let trailers: Map<string, string> | undefined;
  const source = streaming
    ? decodeAwsChunked(iterate(req.body), {
        ...(payload.startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD')
          ? { signing: { signingKey: auth.signingKey, seedSignature: auth.signature, amzDate: auth.amzDate, scope: auth.scope } }
          : {}),
        trailer: payload.endsWith('-TRAILER'),
        decodedLength: length,
        onTrailer: (t) => { trailers = t; },
      })
    : iterate(req.body);

  const check = (received: number): S3Error | undefined => {
    if (received !== length) return new S3Error('IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.', 400);
    if (payloadSha && payloadSha.digest('hex') !== payload) return s3Error('XAmzContentSHA256Mismatch', 400);
    if (algorithm && running) {
      const want = computeOnly ? undefined : trailerName !== null ? trailers?.get(trailerName.toLowerCase()) : expected;
      if (want === undefined && !computeOnly) return new S3Error('InvalidRequest', `The trailer ${trailerName} was announced but not sent.`, 400);
      const got = running.base64();
      if (want !== undefined && got !== want) return new S3Error('BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`, 400);
      verified = { algorithm, value: got };
    }
    return undefined;
  };

  const it = source[Symbol.asyncIterator]();
  let received = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await it.next();
        if (done) {
          failure = check(received);
          if (failure) controller.error(failure);
          else controller.close();
          return;
        }
        received += value.byteLength;
        if (received > length) {
          failure = check(received);
          controller.error(failure);
          return;
        }
        running?.update(value);
        payloadSha?.update(value);
        controller.enqueue(value);
      } catch (err) {
        if (err instanceof S3Error) failure = err;
        else if (err instanceof S3AuthError) failure = new S3Error(err.code, err.message, err.status, err.details);
        else failure = new S3Error('IncompleteBody', 'The request body ended before its declared length.', 400);
        controller.error(failure);
      }
    },
    async cancel() {
      await it.return?.(undefined);
    },
  });
  return { stream: withKnownLength(stream, length), length, failure: () => failure, checksum: () => verified };
}
