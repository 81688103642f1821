/**
 * Listing a bucket: ListObjectsV2, ListObjects (v1) and ListObjectVersions (current objects only, version
 * id `null`, as S3 answers for a bucket that never had versioning), all on the binding's `list`.
 */
import type { StoreObject, StoreObjects } from '../../store/index.js';
import { existingBucket, type S3Request } from '../context.js';
import { S3Error, toS3Error } from '../errors.js';
import { s3StorageClass } from '../headers.js';
import { xmlDocument, type XmlNode } from '../xml.js';
import { ownerOf } from '../expected-owner.js';

/** Largest page S3 returns. */
const MAX_KEYS = 1000;

function maxKeys(query: URLSearchParams, name = 'max-keys'): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return MAX_KEYS;
  if (!/^\d+$/.test(raw)) throw new S3Error('InvalidArgument', 'Provided max-keys not an integer or within integer range', 400);
  return Math.min(Number(raw), MAX_KEYS);
}

/** The greatest key starting with `prefix` is below this one (UTF-8 order): used to skip a whole group. */
const AFTER_GROUP = '\u{10FFFF}\u{10FFFF}';

interface Page {
  objects: StoreObject[];
  prefixes: string[];
  truncated: boolean;
  cursor: string | undefined;
}

async function page(r: S3Request, opts: { prefix: string; delimiter: string; limit: number; cursor?: string; startAfter?: string }): Promise<Page> {
  if (opts.limit === 0) return { objects: [], prefixes: [], truncated: false, cursor: undefined };
  const bucket = await existingBucket(r);
  let listed: StoreObjects;
  try {
    listed = await bucket.list({
      prefix: opts.prefix,
      limit: opts.limit,
      ...(opts.delimiter ? { delimiter: opts.delimiter } : {}),
      ...(opts.cursor ? { cursor: opts.cursor } : {}),
      ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
      include: [],
    });
  } catch (err) {
    throw toS3Error(err);
  }
  return { objects: listed.objects, prefixes: listed.delimitedPrefixes, truncated: listed.truncated, cursor: listed.truncated ? listed.cursor : undefined };
}

/** Encodes names when the client asked for `encoding-type=url`. */
function encoder(query: URLSearchParams): (s: string) => string {
  const type = query.get('encoding-type');
  if (type === null) return (s) => s;
  if (type !== 'url') throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request', 400);
  return (s) => encodeURIComponent(s).replace(/%2F/g, '/');
}

function contents(objects: StoreObject[], enc: (s: string) => string, owner: { ID: string; DisplayName: string } | undefined): XmlNode[] {
  return objects.map((o) => ({
    Key: enc(o.key),
    LastModified: o.uploaded.toISOString(),
    ETag: o.httpEtag,
    Size: o.size,
    ...(owner ? { Owner: owner } : {}),
    StorageClass: s3StorageClass(o.storageClass),
  }));
}

const xml = (body: string): Response => new Response(body, { status: 200, headers: { 'content-type': 'application/xml' } });

/** GET /bucket?list-type=2 */
export async function listObjectsV2(r: S3Request): Promise<Response> {
  const q = r.query;
  const enc = encoder(q);
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const limit = maxKeys(q);
  const token = q.get('continuation-token') ?? undefined;
  const startAfter = q.get('start-after') ?? undefined;
  if (token !== undefined && !/^[A-Za-z0-9+/=]*$/.test(token)) throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', 400);
  const p = await page(r, { prefix, delimiter, limit, ...(token ? { cursor: token } : {}), ...(startAfter ? { startAfter } : {}) });
  return xml(xmlDocument('ListBucketResult', {
    Name: r.bucket!,
    Prefix: enc(prefix),
    ...(startAfter !== undefined ? { StartAfter: enc(startAfter) } : {}),
    ...(token !== undefined ? { ContinuationToken: token } : {}),
    ...(p.cursor ? { NextContinuationToken: p.cursor } : {}),
    KeyCount: p.objects.length + p.prefixes.length,
    ...pageFields(q, enc, limit, delimiter, p.truncated),
    Contents: contents(p.objects, enc, q.get('fetch-owner') === 'true' ? ownerOf(r) : undefined),
    CommonPrefixes: p.prefixes.map((Prefix) => ({ Prefix: enc(Prefix) })),
  }, true));
}

/** Where a v1 page continues after `marker`: past the whole group when the marker is a common prefix. */
function afterMarker(marker: string, delimiter: string): string {
  return delimiter && marker.endsWith(delimiter) ? marker + AFTER_GROUP : marker;
}

/** The v1 NextMarker: the last key or common prefix of the page, whichever sorts last. */
function nextMarker(p: Page): string | undefined {
  const last = [p.objects.at(-1)?.key, p.prefixes.at(-1)].filter((s): s is string => s !== undefined);
  return last.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).at(-1);
}

/** A page of a marker-paged listing (ListObjects v1, ListObjectVersions), after the key in `markerParam`. */
async function markerPage(r: S3Request, markerParam: string) {
  const q = r.query;
  const enc = encoder(q);
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const marker = q.get(markerParam) ?? '';
  const limit = maxKeys(q);
  const p = await page(r, { prefix, delimiter, limit, ...(marker ? { startAfter: afterMarker(marker, delimiter) } : {}) });
  return { enc, prefix, delimiter, marker, limit, p, next: p.truncated ? nextMarker(p) : undefined };
}

/** The page fields every listing ends with: MaxKeys, Delimiter, EncodingType, IsTruncated. */
function pageFields(q: URLSearchParams, enc: (s: string) => string, limit: number, delimiter: string, truncated: boolean): XmlNode {
  return {
    MaxKeys: limit,
    ...(delimiter ? { Delimiter: enc(delimiter) } : {}),
    ...(q.get('encoding-type') ? { EncodingType: 'url' } : {}),
    IsTruncated: truncated,
  };
}

/** GET /bucket (ListObjects v1). */
export async function listObjectsV1(r: S3Request): Promise<Response> {
  const { enc, prefix, delimiter, marker, limit, p, next } = await markerPage(r, 'marker');
  return xml(xmlDocument('ListBucketResult', {
    Name: r.bucket!,
    // ListObjects (v1) echoes Prefix unencoded even with encoding-type=url (S3 does; botocore decodes only
    // Delimiter, Marker, NextMarker, Key and CommonPrefixes of v1).
    Prefix: prefix,
    Marker: enc(marker),
    ...(next !== undefined ? { NextMarker: enc(next) } : {}),
    ...pageFields(r.query, enc, limit, delimiter, p.truncated),
    Contents: contents(p.objects, enc, ownerOf(r)),
    CommonPrefixes: p.prefixes.map((Prefix) => ({ Prefix: enc(Prefix) })),
  }, true));
}

/** GET /bucket?versions: every current object as its only version (`VersionId` null). */
export async function listObjectVersions(r: S3Request): Promise<Response> {
  const { enc, prefix, delimiter, marker, limit, p, next } = await markerPage(r, 'key-marker');
  return xml(xmlDocument('ListVersionsResult', {
    Name: r.bucket!,
    Prefix: enc(prefix),
    KeyMarker: enc(marker),
    VersionIdMarker: r.query.get('version-id-marker') ?? '',
    ...(next !== undefined ? { NextKeyMarker: enc(next), NextVersionIdMarker: 'null' } : {}),
    ...pageFields(r.query, enc, limit, delimiter, p.truncated),
    Version: p.objects.map((o) => ({
      Key: enc(o.key),
      VersionId: 'null',
      IsLatest: true,
      LastModified: o.uploaded.toISOString(),
      ETag: o.httpEtag,
      Size: o.size,
      Owner: ownerOf(r),
      StorageClass: s3StorageClass(o.storageClass),
    })),
    CommonPrefixes: p.prefixes.map((Prefix) => ({ Prefix: enc(Prefix) })),
  }, true));
}
