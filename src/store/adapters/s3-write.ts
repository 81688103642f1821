/**
 * Streams a body into one S3 object without holding it in memory. Bytes are cut into parts of `partSize`;
 * a body of at most one part is a single PutObject, anything longer a multipart upload (CreateMultipartUpload,
 * UploadPart, CompleteMultipartUpload) with one part uploading while the next one fills, so at most two parts
 * are buffered. Either way the object appears under its key only when the write succeeds. On any failure
 * the upload is aborted (and a possibly completed object deleted), so nothing is left behind.
 */
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  PutObjectCommand, UploadPartCommand, type CompletedPart, type S3Client,
} from '@aws-sdk/client-s3';
import { StoreInvariantError } from '../errors.js';

/** Where the object goes. */
export interface S3Target {
  client: S3Client;
  bucket: string;
  key: string;
}

/** The multipart upload of a write, once the body proves longer than one part. */
interface Multipart {
  uploadId: string;
  parts: CompletedPart[];
  /** The part being uploaded, if any (observed before the next one starts). */
  inflight: Promise<void> | undefined;
}

async function startUpload(t: S3Target): Promise<Multipart> {
  const out = await t.client.send(new CreateMultipartUploadCommand({ Bucket: t.bucket, Key: t.key }));
  if (!out.UploadId) throw new StoreInvariantError(`the S3 service returned no upload id for ${t.key}`);
  return { uploadId: out.UploadId, parts: [], inflight: undefined };
}

/** Waits for the previous part, then starts uploading `body` as the next part. */
async function sendPart(t: S3Target, mp: Multipart, body: Buffer): Promise<void> {
  await mp.inflight;
  const partNumber = mp.parts.length + 1;
  const entry: CompletedPart = { PartNumber: partNumber };
  mp.parts.push(entry);
  mp.inflight = t.client
    .send(new UploadPartCommand({ Bucket: t.bucket, Key: t.key, UploadId: mp.uploadId, PartNumber: partNumber, Body: body, ContentLength: body.byteLength }))
    .then((out) => {
      if (!out.ETag) throw new StoreInvariantError(`the S3 service returned no etag for part ${partNumber} of ${t.key}`);
      entry.ETag = out.ETag;
    });
  mp.inflight.catch(() => undefined); // observed by the next sendPart or at the end; never unhandled meanwhile
}

/** Removes whatever a failed write may have left: the upload, and the object if it got completed anyway. */
async function cleanUp(t: S3Target, mp: Multipart | undefined, objectMayExist: boolean): Promise<void> {
  if (mp) {
    await mp.inflight?.catch(() => undefined);
    await t.client.send(new AbortMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId: mp.uploadId })).catch(() => undefined);
  }
  if (objectMayExist) await t.client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: t.key })).catch(() => undefined);
}

/** Writes the source to `t.key`; resolves once the object is complete and durable. */
export async function writeObject(t: S3Target, source: AsyncIterable<Uint8Array>, partSize: number): Promise<void> {
  let pieces: Uint8Array[] = [];
  let filled = 0;
  /** A complete part held back until more bytes show the body needs a multipart upload. */
  let full: Buffer | undefined;
  let mp: Multipart | undefined;
  let finishing = false;
  try {
    for await (const chunk of source) {
      let rest = chunk;
      while (rest.byteLength > 0) {
        if (full) {
          mp ??= await startUpload(t);
          await sendPart(t, mp, full);
          full = undefined;
        }
        const take = Math.min(partSize - filled, rest.byteLength);
        pieces.push(take === rest.byteLength ? rest : rest.subarray(0, take));
        filled += take;
        rest = rest.subarray(take);
        if (filled === partSize) {
          full = Buffer.concat(pieces, filled);
          pieces = [];
          filled = 0;
        }
      }
    }
    const last = full ?? Buffer.concat(pieces, filled);
    finishing = true;
    if (!mp) {
      await t.client.send(new PutObjectCommand({ Bucket: t.bucket, Key: t.key, Body: last, ContentLength: last.byteLength }));
      return;
    }
    if (last.byteLength > 0) await sendPart(t, mp, last);
    await mp.inflight;
    await t.client.send(new CompleteMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId: mp.uploadId, MultipartUpload: { Parts: mp.parts } }));
  } catch (err) {
    // A put or complete whose reply was lost may have taken effect: delete the key too (it is never reused).
    await cleanUp(t, mp, finishing);
    throw err;
  }
}
