/** Service and bucket operations: ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation, GetBucketVersioning. */
import { requireBucket, type S3Request } from '../context.js';
import { S3Error, s3Error } from '../errors.js';
import { xmlDocument } from '../xml.js';
import { ownerOf } from '../expected-owner.js';
import { bucketContents, notEmptyMessage } from '../../store/index.js';


/** Bucket names S3 clients can create: 3–63 lowercase letters, digits and hyphens, starting and ending with a letter or digit. */
export function isValidBucketName(name: string): boolean {
  return /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(name);
}

const xml = (body: string, status = 200): Response => new Response(body, { status, headers: { 'content-type': 'application/xml' } });

/** `max-buckets` of ListBuckets: 1 to 10000 (S3's range); absent, every bucket. */
function maxBuckets(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 10000)) throw new S3Error('InvalidArgument', 'The max-buckets value must be an integer between 1 and 10000.', 400, { ArgumentName: 'max-buckets', ArgumentValue: raw });
  return n;
}

/** GET / (`prefix`, and pages of `max-buckets` with an opaque `continuation-token`). */
export async function listBuckets(r: S3Request): Promise<Response> {
  const q = r.query;
  const max = maxBuckets(q.get('max-buckets'));
  const prefix = q.get('prefix') ?? '';
  const token = q.get('continuation-token');
  let after: string | undefined;
  if (token !== null) {
    after = Buffer.from(token, 'base64url').toString('utf8');
    if (token === '' || Buffer.from(after, 'utf8').toString('base64url') !== token) throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect.', 400, { ArgumentName: 'continuation-token' });
  }
  const all = (await r.deps.store.listBuckets()).filter((b) => b.name.startsWith(prefix) && (after === undefined || b.name > after));
  const page = max === undefined ? all : all.slice(0, max);
  const truncated = page.length < all.length;
  return xml(xmlDocument('ListAllMyBucketsResult', {
    Owner: ownerOf(r),
    Buckets: { Bucket: page.map((b) => ({ Name: b.name, CreationDate: b.created.toISOString() })) },
    ...(truncated ? { ContinuationToken: Buffer.from(page.at(-1)!.name, 'utf8').toString('base64url') } : {}),
    ...(q.has('prefix') ? { Prefix: prefix } : {}),
  }, true));
}

/** PUT /bucket (a CreateBucketConfiguration body, if any, is accepted and ignored: there is one location). */
export async function createBucket(r: S3Request): Promise<Response> {
  const name = r.bucket!;
  if (!isValidBucketName(name)) throw s3Error('InvalidBucketName', 400, { BucketName: name });
  const outcome = await r.deps.store.createBucket(name);
  if (outcome === 'exists') throw s3Error('BucketAlreadyOwnedByYou', 409, { BucketName: name });
  return new Response(null, { status: 200, headers: { location: `/${name}` } });
}

/** HEAD /bucket */
export async function headBucket(r: S3Request): Promise<Response> {
  await requireBucket(r);
  return new Response(null, { status: 200, headers: { 'x-amz-bucket-region': r.deps.region } });
}

/**
 * DELETE /bucket: only an empty bucket (no objects, no multipart upload in progress); a refusal says how many
 * uploads are in progress and how to abort them.
 */
export async function deleteBucket(r: S3Request): Promise<Response> {
  const outcome = await r.deps.store.deleteBucket(r.bucket!);
  if (outcome === 'missing') throw s3Error('NoSuchBucket', 404, { BucketName: r.bucket! });
  if (outcome === 'not-empty') {
    throw new S3Error('BucketNotEmpty', notEmptyMessage(await bucketContents(r.deps.store, r.bucket!)), 409, { BucketName: r.bucket! });
  }
  return new Response(null, { status: 204 });
}

/** GET /bucket?location */
export async function getBucketLocation(r: S3Request): Promise<Response> {
  await requireBucket(r);
  return xml(`<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${r.deps.region}</LocationConstraint>`);
}

/** GET /bucket?versioning: versioning is never enabled (an empty configuration, as S3 answers for a new bucket). */
export async function getBucketVersioning(r: S3Request): Promise<Response> {
  await requireBucket(r);
  return xml(xmlDocument('VersioningConfiguration', {}, true));
}

/** Any bucket subresource this edge does not implement (acl, cors, policy, lifecycle, ...). */
export function notImplemented(what: string): never {
  throw new S3Error('NotImplemented', `${what} is not implemented by Stratus.`, 501);
}
