import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { HttpRequest } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { chunkSignature, decodeAwsChunked, trailerSignature, type AwsChunkedOptions, type ChunkSigning } from './aws-chunked.js';
import { EMPTY_SHA256, S3AuthError, signingKeyFor } from './sigv4.js';

const AWS_KEY = signingKeyFor('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '20130524', 'us-east-1');
const AWS_CTX = { signingKey: AWS_KEY, amzDate: '20130524T000000Z', scope: '20130524/us-east-1/s3/aws4_request' };
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function* pieces(body: Buffer, cut: (i: number) => number = () => body.length): AsyncGenerator<Uint8Array> {
  let pos = 0;
  for (let i = 0; pos < body.length; i++) {
    const n = Math.max(1, Math.min(cut(i), body.length - pos));
    yield body.subarray(pos, pos + n);
    pos += n;
  }
}

async function collect(iter: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const out: Uint8Array[] = [];
  for await (const piece of iter) out.push(piece);
  return Buffer.concat(out);
}

async function decode(body: Buffer | AsyncIterable<Uint8Array>, opts: AwsChunkedOptions) {
  let trailers: Map<string, string> | undefined;
  const data = await collect(
    decodeAwsChunked(Buffer.isBuffer(body) ? pieces(body) : body, { ...opts, onTrailer: (t) => (trailers = t) }),
  );
  return { data, trailers };
}

async function failure(body: Buffer | AsyncIterable<Uint8Array>, opts: AwsChunkedOptions, code: string): Promise<S3AuthError> {
  try {
    await decode(body, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(S3AuthError);
    expect((e as S3AuthError).code).toBe(code);
    return e as S3AuthError;
  }
  throw new Error(`expected ${code}`);
}

/** Frames `chunks` as aws-chunked, signed when `signing` is given, with optional trailers. */
function encode(chunks: Buffer[], signing?: ChunkSigning, trailers: [string, string][] = [], trailer = trailers.length > 0): Buffer {
  const out: Buffer[] = [];
  let previous = signing?.seedSignature ?? '';
  for (const chunk of [...chunks, Buffer.alloc(0)]) {
    let ext = '';
    if (signing) {
      previous = chunkSignature(signing, previous, sha(chunk));
      ext = `;chunk-signature=${previous}`;
    }
    out.push(Buffer.from(`${chunk.length.toString(16)}${ext}\r\n`), chunk);
    if (chunk.length > 0) out.push(Buffer.from('\r\n'));
  }
  for (const [name, value] of trailers) out.push(Buffer.from(`${name}:${value}\r\n`));
  if (signing && trailer) {
    const canonical = trailers.map(([n, v]) => `${n}:${v}\n`).join('');
    out.push(Buffer.from(`x-amz-trailer-signature:${trailerSignature(signing, previous, canonical)}\r\n`));
  }
  out.push(Buffer.from('\r\n'));
  return Buffer.concat(out);
}

const SIGNING: ChunkSigning = { ...AWS_CTX, seedSignature: 'a'.repeat(64) };

describe('decodeAwsChunked against the AWS documentation examples', () => {
  const a64k = Buffer.alloc(65_536, 'a');
  const a1k = Buffer.alloc(1024, 'a');
  const frame = (sigs: string[], tail: string) =>
    Buffer.concat([
      Buffer.from(`10000;chunk-signature=${sigs[0]}\r\n`),
      a64k,
      Buffer.from(`\r\n400;chunk-signature=${sigs[1]}\r\n`),
      a1k,
      Buffer.from(`\r\n0;chunk-signature=${sigs[2]}\r\n${tail}\r\n`),
    ]);

  it('computes the documented first chunk signature', () => {
    expect(chunkSignature(AWS_CTX, '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9', sha(a64k))).toBe(
      'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
    );
  });

  it('"Example: PUT Object" in 64 KiB chunks (STREAMING-AWS4-HMAC-SHA256-PAYLOAD)', async () => {
    const body = frame(
      [
        'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
        '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
        'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
      ],
      '',
    );
    expect(body.length).toBe(66_824); // the documented Content-Length
    const signing = { ...AWS_CTX, seedSignature: '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9' };
    const { data } = await decode(body, { signing, trailer: false, decodedLength: 66_560 });
    expect(data.equals(Buffer.alloc(66_560, 'a'))).toBe(true);
    // the same body in 1000-byte pieces
    const split = await decode(pieces(body, () => 1000), { signing, trailer: false, decodedLength: 66_560 });
    expect(split.data.length).toBe(66_560);
  });

  it('the trailing-header example (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER)', async () => {
    const body = frame(
      [
        'b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2',
        '1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7',
        '2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992',
      ],
      'x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435\r\n',
    );
    const signing = { ...AWS_CTX, seedSignature: '106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e' };
    const { data, trailers } = await decode(body, { signing, trailer: true, decodedLength: 66_560 });
    expect(data.length).toBe(66_560);
    expect([...trailers!]).toEqual([['x-amz-checksum-crc32c', 'sOO8/Q==']]);
    const forged = Buffer.from(body.toString('latin1').replace('sOO8/Q==', 'AAAAAA=='), 'latin1');
    await failure(forged, { signing, trailer: true }, 'SignatureDoesNotMatch');
  });
});

describe('decodeAwsChunked framing', () => {
  const chunks = [Buffer.from('hello'), Buffer.from('\r\n0\r\n'), Buffer.from('xyz')];
  const whole = Buffer.concat(chunks);

  it('decodes a body split at every byte position, signed with trailers and unsigned', async () => {
    const trailers: [string, string][] = [['x-amz-checksum-crc32', 'NSRBwg==']];
    const cases: [Buffer, AwsChunkedOptions][] = [
      [encode(chunks, SIGNING, trailers), { signing: SIGNING, trailer: true, decodedLength: whole.length }],
      [encode(chunks, undefined, trailers), { trailer: true, decodedLength: whole.length }],
      [encode(chunks, SIGNING), { signing: SIGNING, trailer: false }],
    ];
    for (const [body, opts] of cases) {
      for (let cut = 0; cut <= body.length; cut++) {
        const split = async function* () {
          yield body.subarray(0, cut);
          yield body.subarray(cut);
        };
        const { data, trailers: got } = await decode(split(), opts);
        expect(data.equals(whole)).toBe(true);
        if (opts.trailer) expect(got!.get('x-amz-checksum-crc32')).toBe('NSRBwg==');
      }
      const { data } = await decode(pieces(body, () => 1), opts);
      expect(data.equals(whole)).toBe(true);
    }
  });

  it('several trailers, names lowercased, signed in the order sent', async () => {
    const trailers: [string, string][] = [
      ['x-amz-checksum-sha256', sha(whole)],
      ['x-amz-checksum-crc32c', 'abc='],
    ];
    const body = Buffer.from(
      encode(chunks, SIGNING, trailers).toString('latin1').replace('x-amz-checksum-sha256:', 'X-Amz-Checksum-SHA256: '),
      'latin1',
    );
    const { trailers: got } = await decode(body, { signing: SIGNING, trailer: true });
    expect(got!.get('x-amz-checksum-sha256')).toBe(sha(whole));
    expect(got!.size).toBe(2);
  });

  it('an SDK body without a checksum may end right after "0\\r\\n"', async () => {
    const { data, trailers } = await decode(Buffer.from('5\r\nhello\r\n0\r\n'), { trailer: true });
    expect(data.toString()).toBe('hello');
    expect(trailers!.size).toBe(0);
    const { data: empty } = await decode(Buffer.from('0\r\n\r\n'), { trailer: false, decodedLength: 0 });
    expect(empty.length).toBe(0);
  });

  it('truncated bodies are IncompleteBody', async () => {
    const body = encode(chunks, SIGNING, [['x-amz-checksum-crc32', 'NSRBwg==']]);
    for (const end of [0, 3, 10, 90, 100, body.length - 60, body.length - 1]) {
      const e = await failure(body.subarray(0, end), { signing: SIGNING, trailer: true }, 'IncompleteBody');
      expect(e.status).toBe(400);
    }
    await failure(Buffer.from('5\r\nhel'), { trailer: true }, 'IncompleteBody');
    await failure(Buffer.from('5\r\nhello\r\n'), { trailer: true }, 'IncompleteBody');
    await failure(Buffer.from('5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAA'), { trailer: true }, 'IncompleteBody');
  });

  it('a decoded length other than announced is IncompleteBody', async () => {
    const body = encode(chunks);
    await failure(body, { trailer: false, decodedLength: whole.length + 1 }, 'IncompleteBody');
    await failure(body, { trailer: false, decodedLength: whole.length - 1 }, 'IncompleteBody');
    await failure(body, { trailer: false, decodedLength: 0 }, 'IncompleteBody');
  });

  it('malformed framing is InvalidRequest', async () => {
    const bad = ['zz\r\nhello\r\n0\r\n\r\n', '5\r\nhelloXX0\r\n\r\n', '5\r\nhello\r\n0\r\n\r\nextra', `${'0'.repeat(5000)}\r\n`];
    for (const text of bad) expect((await failure(Buffer.from(text), { trailer: false }, 'InvalidRequest')).status).toBe(400);
    await failure(Buffer.from('5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAA\r\n\r\n'), { trailer: false }, 'InvalidRequest');
    await failure(Buffer.from('5\r\nhello\r\n0\r\nno-colon\r\n\r\n'), { trailer: true }, 'InvalidRequest');
  });
});

describe('decodeAwsChunked signatures', () => {
  const chunks = [Buffer.alloc(70_000, 1), Buffer.alloc(10, 2)];
  const trailers: [string, string][] = [['x-amz-checksum-crc32', 'AAAAAA==']];

  it('a wrong chunk signature, a tampered byte, a wrong seed', async () => {
    const body = encode(chunks, SIGNING, trailers);
    const opts = { signing: SIGNING, trailer: true };
    const text = body.toString('latin1');
    const firstSig = /chunk-signature=(\w+)/.exec(text)![1]!;
    await failure(Buffer.from(text.replace(firstSig, '0'.repeat(64)), 'latin1'), opts, 'SignatureDoesNotMatch');
    const flipped = Buffer.from(body);
    flipped[200] ^= 1;
    await failure(flipped, opts, 'SignatureDoesNotMatch');
    await failure(body, { ...opts, signing: { ...SIGNING, seedSignature: 'b'.repeat(64) } }, 'SignatureDoesNotMatch');
    await failure(body, { ...opts, signing: { ...SIGNING, signingKey: signingKeyFor('other', '20130524', 'us-east-1') } }, 'SignatureDoesNotMatch');
  });

  it('a missing chunk signature, a dropped final chunk, a missing or wrong trailer signature', async () => {
    const opts = { signing: SIGNING, trailer: true };
    await failure(encode(chunks, undefined, trailers), opts, 'SignatureDoesNotMatch');
    const body = encode(chunks, SIGNING, trailers).toString('latin1');
    await failure(Buffer.from(body.replace(/x-amz-trailer-signature:\w+\r\n/, ''), 'latin1'), opts, 'SignatureDoesNotMatch');
    await failure(Buffer.from(body.replace(/(x-amz-trailer-signature:)\w/, '$10'), 'latin1'), opts, 'SignatureDoesNotMatch');
    // Changing the data under a valid signature line breaks it.
    const a = encode([Buffer.from('ab')], SIGNING).toString('latin1');
    await failure(Buffer.from(a.replace('\r\nab\r\n', '\r\nba\r\n'), 'latin1'), { signing: SIGNING, trailer: false }, 'SignatureDoesNotMatch');
    await decode(Buffer.from(a, 'latin1'), { signing: SIGNING, trailer: false });
  });

  it('the empty final chunk is signed with the hash of nothing', () => {
    expect(chunkSignature(AWS_CTX, 'x', EMPTY_SHA256)).toBe(chunkSignature(AWS_CTX, 'x', sha(Buffer.alloc(0))));
  });
});

describe('decodeAwsChunked with the SDK and large bodies', () => {
  it('decodes the aws-chunked body @aws-sdk/client-s3 sends for a stream, with its CRC32 trailer', async () => {
    const payload = Buffer.alloc(200_000);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7) % 251;
    let wire: Buffer | undefined;
    let headers: Record<string, string> = {};
    const client = new S3Client({
      region: 'auto',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
      maxAttempts: 1,
      requestHandler: {
        handle: async (req: HttpRequest) => {
          headers = req.headers;
          const parts: Buffer[] = [];
          for await (const p of req.body as Readable) parts.push(Buffer.from(p));
          wire = Buffer.concat(parts);
          throw new Error('captured');
        },
      } as never,
    });
    const body = Readable.from([payload.subarray(0, 70_000), payload.subarray(70_000)]);
    await client
      .send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: body, ContentLength: payload.length }))
      .catch((e: Error) => expect(e.message).toBe('captured'));
    expect(headers['x-amz-content-sha256']).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
    const { data, trailers } = await decode(pieces(wire!, (i) => 1 + ((i * 7919) % 9000)), {
      trailer: true,
      decodedLength: Number(headers['x-amz-decoded-content-length']),
    });
    expect(data.equals(payload)).toBe(true);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(payload));
    expect(trailers!.get(headers['x-amz-trailer']!)).toBe(crc.toString('base64'));
  });

  it('streams 256 MiB unsigned and 32 MiB signed without copying chunk data', async () => {
    const block = Buffer.alloc(1 << 20, 7);
    async function* big(count: number, signing?: ChunkSigning): AsyncGenerator<Uint8Array> {
      let previous = signing?.seedSignature ?? '';
      const blockSha = sha(block);
      for (let i = 0; i <= count; i++) {
        const size = i < count ? block.length : 0;
        let ext = '';
        if (signing) {
          previous = chunkSignature(signing, previous, size ? blockSha : EMPTY_SHA256);
          ext = `;chunk-signature=${previous}`;
        }
        yield Buffer.from(`${size.toString(16)}${ext}\r\n`);
        if (size) {
          yield block.subarray(0, 300_000);
          yield block.subarray(300_000);
          yield Buffer.from('\r\n');
        }
      }
      yield Buffer.from('\r\n');
    }
    for (const [count, signing] of [[256, undefined], [32, SIGNING]] as const) {
      let total = 0;
      for await (const piece of decodeAwsChunked(big(count, signing), { signing, trailer: false, decodedLength: count << 20 })) {
        expect(piece.buffer).toBe(block.buffer);
        total += piece.length;
      }
      expect(total).toBe(count << 20);
    }
  });
});
