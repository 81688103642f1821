/**
 * Streaming decoder for `Content-Encoding: aws-chunked` request bodies, with optional chunk and trailer
 * signature checks.
 *
 * Wire format (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html and
 * sigv4-streaming-trailers.html; the unsigned form is what `@smithy/core`'s `getAwsChunkedEncodingStream`
 * and botocore's `AwsChunkedWrapper` send):
 *
 *     hex-size[;chunk-signature=sig]\r\n data \r\n ... 0[;chunk-signature=sig]\r\n
 *     [name:value\r\n ...] [x-amz-trailer-signature:sig\r\n] \r\n
 *
 * Invariants:
 * - Memory is bounded: data is yielded as sub-slices of the input pieces, never gathered per chunk; only a
 *   header or trailer line (at most 4 KiB, trailers 16 KiB in all) is buffered.
 * - A chunk's signature can only be checked once its last byte has passed, so the bytes yielded are
 *   provisional until the iterable ends without throwing; consumers must not commit before that.
 * - Trailers reach `onTrailer` (lowercase names) only after their signature, if any, verified, and before
 *   the iterable finishes. Anything after the closing empty line is an error.
 */
import { createHash, type Hash } from 'node:crypto';
import { EMPTY_SHA256, hmacHex, S3AuthError, sha256Hex, signaturesEqual } from './sigv4.js';

/** The request's signing context: its key, date, scope and seed signature. */
export interface ChunkSigning {
  signingKey: Buffer;
  seedSignature: string;
  amzDate: string;
  scope: string;
}

/** How to decode: signed or not, with or without trailers, and the announced decoded length. */
export interface AwsChunkedOptions {
  /** Given for `STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]`: every chunk (and the trailer) is verified. */
  signing?: ChunkSigning;
  /** True for the `-TRAILER` variants (`x-amz-trailer`). */
  trailer: boolean;
  /** `x-amz-decoded-content-length`; a different decoded size fails with `IncompleteBody`. */
  decodedLength?: number;
  /** Receives the trailing headers (without `x-amz-trailer-signature`). */
  onTrailer?: (headers: Map<string, string>) => void;
}

type Context = Omit<ChunkSigning, 'seedSignature'>;

/** The signature of one chunk, given the previous signature and the chunk data's SHA-256 (hex). */
export function chunkSignature(ctx: Context, previous: string, dataSha256: string): string {
  return hmacHex(
    ctx.signingKey,
    `AWS4-HMAC-SHA256-PAYLOAD\n${ctx.amzDate}\n${ctx.scope}\n${previous}\n${EMPTY_SHA256}\n${dataSha256}`,
  );
}

/** The trailer signature; `canonical` is each trailer as `name:value\n`, in order. */
export function trailerSignature(ctx: Context, previous: string, canonical: string): string {
  return hmacHex(ctx.signingKey, `AWS4-HMAC-SHA256-TRAILER\n${ctx.amzDate}\n${ctx.scope}\n${previous}\n${sha256Hex(canonical)}`);
}

const MAX_LINE = 4096;
const MAX_TRAILERS = 16_384;
const CR = 0x0d;
const LF = 0x0a;

const incomplete = (message = 'The request body terminated unexpectedly') =>
  new S3AuthError('IncompleteBody', message, 400);
const invalid = (why: string) => new S3AuthError('InvalidRequest', `Invalid aws-chunked body: ${why}`, 400);
const mismatch = () =>
  new S3AuthError(
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );

/**
 * Decodes an aws-chunked body, yielding the payload bytes. Input pieces may split anywhere. Throws
 * `S3AuthError`: `SignatureDoesNotMatch` (403) for a bad chunk or trailer signature, `IncompleteBody` (400)
 * for a truncated body or a decoded length other than announced, `InvalidRequest` (400) for bad framing.
 */
export async function* decodeAwsChunked(
  source: AsyncIterable<Uint8Array>,
  opts: AwsChunkedOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const { signing, decodedLength } = opts;
  // Declared through `as` so that assignments made inside the helpers below are not narrowed away.
  let state = 'size' as 'size' | 'data' | 'crlf' | 'trailer' | 'done';
  let line: Buffer[] = [];
  let lineLength = 0;
  let remaining = 0;
  let crlf = 0;
  let total = 0;
  let previous = signing?.seedSignature ?? '';
  let expected = '';
  let hash: Hash | undefined;
  const trailers = new Map<string, string>();
  const trailerLines: string[] = [];
  let trailerSig: string | undefined;
  let trailerBytes = 0;

  const verifyChunk = (dataSha256: string) => {
    if (!signing) return;
    if (!signaturesEqual(chunkSignature(signing, previous, dataSha256), expected)) throw mismatch();
    previous = expected;
  };

  const onSizeLine = (text: string) => {
    const [size = '', ...extensions] = text.split(';');
    if (!/^[0-9a-fA-F]{1,13}$/.test(size.trim())) throw invalid('bad chunk size');
    remaining = parseInt(size, 16);
    if (signing) {
      const ext = extensions.map((e) => e.trim()).find((e) => e.startsWith('chunk-signature='));
      if (ext === undefined) throw mismatch();
      expected = ext.slice('chunk-signature='.length);
    }
    if (decodedLength !== undefined && total + remaining > decodedLength) {
      throw incomplete('The decoded body is longer than x-amz-decoded-content-length');
    }
    if (remaining > 0) {
      hash = signing ? createHash('sha256') : undefined;
      state = 'data';
      return;
    }
    verifyChunk(EMPTY_SHA256);
    if (decodedLength !== undefined && total !== decodedLength) {
      throw incomplete('The decoded body is shorter than x-amz-decoded-content-length');
    }
    state = 'trailer';
  };

  const finishTrailers = () => {
    if (signing && opts.trailer) {
      if (trailerSig === undefined) throw mismatch();
      const inOrder = trailerLines.map((l) => `${l}\n`).join('');
      const sorted = [...trailerLines].sort().map((l) => `${l}\n`).join('');
      const ok = [...new Set([inOrder, sorted])].some((c) =>
        signaturesEqual(trailerSignature(signing, previous, c), trailerSig!),
      );
      if (!ok) throw mismatch();
    }
    opts.onTrailer?.(trailers);
    state = 'done';
  };

  const onTrailerLine = (text: string) => {
    if (text === '') return finishTrailers();
    if (!opts.trailer) throw invalid('trailing headers were not announced');
    trailerBytes += text.length;
    if (trailerBytes > MAX_TRAILERS) throw invalid('trailing headers too large');
    const colon = text.indexOf(':');
    if (colon <= 0) throw invalid('bad trailing header');
    const name = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (trailerSig !== undefined) throw invalid('x-amz-trailer-signature must be the last trailing header');
    if (name === 'x-amz-trailer-signature') {
      trailerSig = value;
      return;
    }
    trailers.set(name, value);
    trailerLines.push(`${name}:${value}`);
  };

  for await (const piece of source) {
    let pos = 0;
    while (pos < piece.length) {
      if (state === 'data') {
        const n = Math.min(remaining, piece.length - pos);
        const slice = piece.subarray(pos, pos + n);
        pos += n;
        remaining -= n;
        total += n;
        hash?.update(slice);
        yield slice;
        if (remaining === 0) {
          verifyChunk(hash ? hash.digest('hex') : '');
          state = 'crlf';
        }
      } else if (state === 'crlf') {
        if (piece[pos++] !== (crlf === 0 ? CR : LF)) throw invalid('chunk data not followed by CRLF');
        crlf = (crlf + 1) % 2;
        if (crlf === 0) state = 'size';
      } else if (state === 'size' || state === 'trailer') {
        const lf = piece.indexOf(LF, pos);
        const end = lf < 0 ? piece.length : lf;
        lineLength += end - pos;
        if (lineLength > MAX_LINE) throw invalid('line too long');
        line.push(Buffer.from(piece.buffer, piece.byteOffset + pos, end - pos));
        pos = end;
        if (lf < 0) continue;
        pos++;
        let text = Buffer.concat(line).toString('latin1');
        if (text.endsWith('\r')) text = text.slice(0, -1);
        line = [];
        lineLength = 0;
        if (state === 'size') onSizeLine(text);
        else onTrailerLine(text);
      } else {
        throw invalid('data after the end of the body');
      }
    }
  }
  if (state === 'trailer' && lineLength === 0 && trailerLines.length === 0 && trailerSig === undefined) {
    // The SDKs end an unsigned body without a checksum at `0\r\n`, without the closing empty line.
    if (!(signing && opts.trailer)) finishTrailers();
  }
  if (state !== 'done') throw incomplete();
}
