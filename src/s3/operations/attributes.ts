/**
 * GetObjectAttributes (`GET /bucket/key?attributes`): the attributes named by `x-amz-object-attributes` (`ETag`,
 * `Checksum`, `ObjectParts`, `StorageClass`, `ObjectSize`) without the body, as S3 answers it
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectAttributes.html): the etag unquoted, the stored
 * flexible checksum (composite `<base64>-<parts>` for a multipart object), and for a multipart object its parts
 * paged by `x-amz-max-parts` / `x-amz-part-number-marker`, each with its number, size and stored checksums. A
 * single-part object has no `ObjectParts`. `Last-Modified` is a header; `x-amz-version-id` is never sent, since
 * buckets here are not versioned (only `versionId=null` is accepted, as for GetObject).
 */
import type { StoreObjectLayout } from '../../store/index.js';
import { keyOf, type S3Request } from '../context.js';
import { S3Error, toS3Error } from '../errors.js';
import { s3StorageClass } from '../headers.js';
import { checksumElements } from '../checksum-headers.js';
import { xmlDocument, type XmlNode } from '../xml.js';
import { changedDuringRead } from './part-read.js';
import { headWithKey } from './objects.js';

/** The attribute names S3 accepts in `x-amz-object-attributes`. */
const ATTRIBUTES = new Set(['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize']);

/** The requested attributes; InvalidArgument when the header is missing, empty or names an unknown attribute. */
export function requestedAttributes(headers: Headers): Set<string> {
  const raw = headers.get('x-amz-object-attributes');
  const names = (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) {
    throw new S3Error('InvalidArgument', 'The x-amz-object-attributes header specifying the attributes to be retrieved is either missing or empty', 400, { ArgumentName: 'x-amz-object-attributes' });
  }
  for (const name of names) {
    if (!ATTRIBUTES.has(name)) throw new S3Error('InvalidArgument', 'Invalid attribute name specified.', 400, { ArgumentName: 'x-amz-object-attributes', ArgumentValue: name });
  }
  return new Set(names);
}

/** A non-negative integer header (`x-amz-max-parts`, `x-amz-part-number-marker`), or `fallback` when absent. */
function integerHeader(headers: Headers, name: string, fallback: number): number {
  const raw = headers.get(name);
  if (raw === null) return fallback;
  const value = raw.trim();
  if (!/^\d{1,10}$/.test(value) || Number(value) > 2147483647) {
    throw new S3Error('InvalidArgument', `Provided ${name} not an integer or within integer range`, 400, { ArgumentName: name, ArgumentValue: raw });
  }
  return Number(value);
}

/** The `ObjectParts` element of a multipart object: one page of its parts after the marker. */
function objectPartsElement(layout: StoreObjectLayout, { marker, max }: { marker: number; max: number }): XmlNode {
  const sizes = layout.partSizes!;
  const first = Math.min(marker, sizes.length);
  const page = sizes.slice(first, first + max).map((size, i) => {
    const number = first + i + 1;
    const sums = layout.partChecksums?.[number - 1] ?? {};
    return {
      PartNumber: number,
      Size: size,
      ...Object.fromEntries(Object.entries(sums).map(([alg, hex]) => [`Checksum${alg.toUpperCase()}`, Buffer.from(hex, 'hex').toString('base64')])),
    };
  });
  const truncated = first + page.length < sizes.length;
  return {
    PartsCount: sizes.length,
    PartNumberMarker: marker,
    ...(truncated ? { NextPartNumberMarker: page.at(-1)!.PartNumber } : {}),
    MaxParts: max,
    IsTruncated: truncated,
    Part: page,
  };
}

/** GET /bucket/key?attributes */
export async function getObjectAttributes(r: S3Request): Promise<Response> {
  const wanted = requestedAttributes(r.headers);
  const paging = {
    marker: integerHeader(r.headers, 'x-amz-part-number-marker', 0),
    max: Math.min(integerHeader(r.headers, 'x-amz-max-parts', 1000), 1000),
  };
  const obj = await headWithKey(r);
  let layout: StoreObjectLayout | null = null;
  if (wanted.has('ObjectParts')) {
    layout = await r.deps.store.objectParts(r.bucket!, keyOf(r)).catch((err: unknown) => { throw toS3Error(err); });
    // Replaced or deleted between the two reads: the attributes would mix two objects.
    if (!layout || layout.etag !== obj.etag) throw changedDuringRead();
  }
  const content: XmlNode = {};
  if (wanted.has('ETag')) content.ETag = obj.etag;
  if (wanted.has('Checksum')) {
    const sums = checksumElements(obj);
    if (Object.keys(sums).length > 0) content.Checksum = sums;
  }
  if (layout?.partSizes) content.ObjectParts = objectPartsElement(layout, paging);
  if (wanted.has('StorageClass')) content.StorageClass = s3StorageClass(obj.storageClass);
  if (wanted.has('ObjectSize')) content.ObjectSize = obj.size;
  const headers = new Headers({ 'content-type': 'application/xml', 'last-modified': obj.uploaded.toUTCString() });
  return new Response(xmlDocument('GetObjectAttributesResponse', content, true), { status: 200, headers });
}
