/**
 * The S3 BlobStore adapter against a real S3 endpoint: Stratus's own S3 API (startTestServer). Runs the
 * BlobStore contract with a fresh prefix per test, then what only S3 has: multipart writes across part
 * boundaries, cleanup of failed writes and abandoned uploads, If-Match on replaced objects, and a bucket
 * store whose bodies live in S3.
 */
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateBucketCommand, CreateMultipartUploadCommand, HeadObjectCommand, ListMultipartUploadsCommand, PutObjectCommand,
  S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { S3BlobStore, S3_GC_DELAY_MS, S3_PART_SIZE } from '../../src/store/adapters/s3-blobs.js';
import { newBlobId } from '../../src/store/adapters/file-blobs.js';
import { SqliteMetadataStore } from '../../src/store/adapters/sqlite-metadata.js';
import { openBucketStore } from '../../src/store/open.js';
import type { StoreObjectBody } from '../../src/store/types.js';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { blobStoreContract } from './contract/blob-store.js';
import { bytes, tempDir } from './helpers.js';

const BUCKET = 'stratus-blobs';
let server: TestServer;
let admin: S3Client;

const connection = () => ({
  endpoint: server.running.s3Url!,
  region: 'auto',
  bucket: BUCKET,
  forcePathStyle: true,
  credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET },
});

/** A store under a prefix no other test uses. */
function freshStore(): S3BlobStore {
  return new S3BlobStore({ ...connection(), prefix: `t-${randomBytes(6).toString('hex')}/` });
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const c of it) pieces.push(c);
  return Buffer.concat(pieces);
}

async function listed(s: S3BlobStore): Promise<string[]> {
  const ids: string[] = [];
  for await (const b of s.list()) ids.push(b.blobId);
  return ids;
}

async function uploadsUnder(prefix: string): Promise<string[]> {
  const out = await admin.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Uploads ?? []).map((u) => u.Key!);
}

/** Records the names of the commands the store's client sends from now on. */
function recordCommands(s: S3BlobStore): string[] {
  const names: string[] = [];
  s.client.middlewareStack.add((next, context) => async (args) => {
    names.push(String(context.commandName));
    return next(args);
  }, { step: 'initialize' });
  return names;
}

/** Yields `data` in pieces of `step` bytes (not aligned with the part size). */
async function* inPieces(data: Uint8Array, step: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < data.byteLength; at += step) yield data.subarray(at, at + step);
}

beforeAll(async () => {
  server = await startTestServer();
  admin = new S3Client({ ...connection(), maxAttempts: 1 });
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  admin?.destroy();
  await server?.stop();
});

blobStoreContract('s3', {
  readsSurviveDelete: false,
  async open() {
    const store = freshStore();
    return { store, cleanup: async () => store.destroy() };
  },
});

describe('S3BlobStore', () => {
  it('writes 20 MiB as a multipart upload and reads it back byte for byte, across part boundaries', async () => {
    const s = freshStore();
    try {
      const size = 20 * 1024 * 1024;
      const data = bytes(size, 7);
      const id = await s.write(inPieces(data, 1_300_001));
      const head = await admin.send(new HeadObjectCommand({ Bucket: BUCKET, Key: s.prefix + id }));
      expect(head.ETag).toMatch(/-3"$/); // three parts: 8 + 8 + 4 MiB
      const h = await s.open(id);
      expect(h.size).toBe(size);
      expect((await collect(h.read(0, size))).equals(Buffer.from(data))).toBe(true);
      for (const [from, length] of [[S3_PART_SIZE - 5, 10], [2 * S3_PART_SIZE - 100_000, 200_000], [1, size - 2], [S3_PART_SIZE, S3_PART_SIZE]]) {
        const got = await collect(h.read(from!, length!));
        expect(got.equals(Buffer.from(data.subarray(from!, from! + length!))), `range ${from}+${length}`).toBe(true);
      }
      // A reader that stops inside the first range drops the prefetched second one and can close at once.
      for await (const c of h.read(0, size)) {
        expect(c.byteLength).toBeGreaterThan(0);
        break;
      }
      expect((await collect(h.read(size - 3, 3))).equals(Buffer.from(data.subarray(size - 3)))).toBe(true);
      await h.close();
      expect(await listed(s)).toEqual([id]);
    } finally {
      s.destroy();
    }
  });

  it('writes a body of exactly one part with a single PutObject', async () => {
    const s = freshStore();
    try {
      const data = bytes(S3_PART_SIZE, 3);
      const sent = recordCommands(s);
      const id = await s.write(inPieces(data, 1_000_000));
      expect(sent).toEqual(['PutObjectCommand']);
      const head = await admin.send(new HeadObjectCommand({ Bucket: BUCKET, Key: s.prefix + id }));
      expect(head.ETag).not.toContain('-');
      const h = await s.open(id);
      expect((await collect(h.read(0, data.byteLength))).equals(Buffer.from(data))).toBe(true);
      await h.close();
    } finally {
      s.destroy();
    }
  });

  it('a source failing after two parts leaves no object and no multipart upload', async () => {
    const s = freshStore();
    try {
      const data = bytes(2 * S3_PART_SIZE + 1000, 5);
      async function* failing(): AsyncIterable<Uint8Array> {
        yield* inPieces(data, 2_000_000);
        throw new Error('source broke');
      }
      const sent = recordCommands(s);
      await expect(s.write(failing())).rejects.toThrow('source broke');
      expect(sent).toEqual(['CreateMultipartUploadCommand', 'UploadPartCommand', 'UploadPartCommand', 'AbortMultipartUploadCommand']);
      expect(await listed(s)).toEqual([]);
      expect(await uploadsUnder(s.prefix)).toEqual([]);
      expect(await s.sweepIncomplete(Date.now() + 1000)).toBe(0);
    } finally {
      s.destroy();
    }
  });

  it('sweepIncomplete aborts an abandoned upload once it is old enough, and only under its prefix', async () => {
    const s = freshStore();
    const other = freshStore();
    try {
      for (const store of [s, other]) {
        const key = store.prefix + newBlobId();
        const { UploadId } = await admin.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }));
        await admin.send(new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber: 1, Body: Buffer.from('abandoned') }));
      }
      expect(await s.sweepIncomplete(Date.now() - 60_000)).toBe(0);
      expect(await uploadsUnder(s.prefix)).toHaveLength(1);
      expect(await s.sweepIncomplete(Date.now() + 1000)).toBe(1);
      expect(await uploadsUnder(s.prefix)).toEqual([]);
      expect(await uploadsUnder(other.prefix)).toHaveLength(1);
      expect(await other.sweepIncomplete(Date.now() + 1000)).toBe(1);
    } finally {
      s.destroy();
      other.destroy();
    }
  });

  it('a read refuses an object replaced (If-Match) or deleted after open, with a clear error', async () => {
    const s = freshStore();
    try {
      const id = await s.write(inPieces(bytes(100_000, 1), 30_000));
      const h = await s.open(id);
      await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: s.prefix + id, Body: Buffer.from(bytes(100_000, 2)) }));
      await expect(collect(h.read(0, 100_000))).rejects.toThrow(/replaced/);
      await s.delete(id);
      await expect(collect(h.read(0, 100_000))).rejects.toThrow(/deleted/);
      await h.close();
      await expect(s.open(id)).rejects.toThrow(/does not exist/);
    } finally {
      s.destroy();
    }
  });

  it('keeps the bodies of a bucket store: a 1 MiB object put and got byte for byte', async () => {
    const dir = tempDir();
    const blobs = freshStore();
    const store = await openBucketStore({
      dataDir: dir, gcDelayMs: S3_GC_DELAY_MS, sweepOnOpen: false,
      adapters: { meta: SqliteMetadataStore.inDataDir(dir), blobs },
    });
    try {
      const data = bytes(1024 * 1024, 11);
      const bucket = store.bucket('photos');
      await bucket.put('big.bin', data);
      const ids = await listed(blobs);
      expect(ids).toHaveLength(1); // the body is a blob in S3, not inline and not a file
      const got = (await bucket.get('big.bin')) as StoreObjectBody;
      expect(got.size).toBe(data.byteLength);
      expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(data))).toBe(true);
      const part = (await bucket.get('big.bin', { range: { offset: 1000, length: 5000 } })) as StoreObjectBody;
      expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(data.subarray(1000, 6000)))).toBe(true);
    } finally {
      await store.close();
      blobs.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
