/**
 * Which query parameters a request may carry. S3 selects an operation by its subresource (`?uploads`,
 * `?acl`, `?versioning`, ...): a subresource this edge does not know must never fall through to the plain
 * operation of the same method (`DELETE /bucket?policyStatus` is not DeleteBucket, `PUT /bucket/key?uploads`
 * is not PutObject). So the router works from an allowlist: each operation names the parameters it reads;
 * anything else is refused before the operation runs: `NotImplemented` (501) for a subresource S3 has,
 * `InvalidArgument` (400) for a parameter S3 does not know at all.
 */
import { S3Error } from './errors.js';

/**
 * Parameters any request may carry (compared case-insensitively: presigners hoist headers under their own
 * spelling): SigV4 presigning, the payload hash and checksum mode a presigner may hoist, and the SDKs' `x-id`
 * operation marker. Other hoisted `x-amz-*` headers (ACLs, metadata, ...) are not applied from the query, so they
 * are refused like any unknown parameter.
 */
const ALWAYS = new Set([
  'x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-expires', 'x-amz-signedheaders', 'x-amz-signature',
  'x-amz-security-token', 'x-amz-content-sha256', 'x-amz-checksum-mode', 'x-id', 'x-amz-user-agent',
]);

/** Subresources and selectors of S3 operations (bucket and object), as S3's API reference names them. */
const S3_SUBRESOURCES = new Set([
  'accelerate', 'acl', 'analytics', 'attributes', 'cors', 'delete', 'encryption', 'intelligent-tiering', 'inventory',
  'legal-hold', 'lifecycle', 'location', 'logging', 'metadataConfiguration', 'metadataTable', 'metrics', 'notification',
  'object-lock', 'ownershipControls', 'policy', 'policyStatus', 'publicAccessBlock', 'renameObject', 'replication',
  'requestPayment', 'restore', 'retention', 'select', 'select-type', 'session', 'tagging', 'torrent', 'uploads',
  'uploadId', 'versioning', 'versions', 'website', 'partNumber', 'list-type', 'versionId', 'abac', 'inventoryConfiguration',
]);

/** The `response-*` overrides of GetObject and HeadObject. */
export const RESPONSE_OVERRIDE_PARAMS = [
  'response-content-type', 'response-content-language', 'response-expires', 'response-cache-control',
  'response-content-disposition', 'response-content-encoding',
];

/** Parameters of each operation (besides {@link ALWAYS}). */
export const OPERATION_PARAMS: Record<string, readonly string[]> = {
  ListBuckets: ['max-buckets', 'continuation-token', 'prefix', 'bucket-region'],
  ListObjects: ['delimiter', 'encoding-type', 'marker', 'max-keys', 'prefix'],
  ListObjectsV2: ['list-type', 'delimiter', 'encoding-type', 'max-keys', 'prefix', 'continuation-token', 'fetch-owner', 'start-after'],
  ListObjectVersions: ['versions', 'delimiter', 'encoding-type', 'key-marker', 'max-keys', 'prefix', 'version-id-marker'],
  ListMultipartUploads: ['uploads', 'delimiter', 'encoding-type', 'key-marker', 'max-uploads', 'prefix', 'upload-id-marker'],
  GetBucketLocation: ['location'],
  GetBucketVersioning: ['versioning'],
  GetBucketCors: ['cors'],
  PutBucketCors: ['cors'],
  DeleteBucketCors: ['cors'],
  GetBucketLifecycleConfiguration: ['lifecycle'],
  PutBucketLifecycleConfiguration: ['lifecycle'],
  DeleteBucketLifecycle: ['lifecycle'],
  HeadBucket: [],
  CreateBucket: [],
  DeleteBucket: [],
  DeleteObjects: ['delete'],
  GetObject: ['partNumber', 'versionId', ...RESPONSE_OVERRIDE_PARAMS],
  HeadObject: ['partNumber', 'versionId', ...RESPONSE_OVERRIDE_PARAMS],
  GetObjectAttributes: ['attributes', 'versionId'],
  PutObject: [],
  CopyObject: [],
  DeleteObject: ['versionId'],
  GetObjectTagging: ['tagging', 'versionId'],
  DeleteObjectTagging: ['tagging', 'versionId'],
  CreateMultipartUpload: ['uploads'],
  UploadPart: ['partNumber', 'uploadId'],
  UploadPartCopy: ['partNumber', 'uploadId'],
  CompleteMultipartUpload: ['uploadId'],
  AbortMultipartUpload: ['uploadId'],
  ListParts: ['uploadId', 'max-parts', 'part-number-marker', 'encoding-type'],
};

/**
 * Refuses a request to `operation` that carries a parameter the operation does not read: a known S3
 * subresource is an operation Stratus does not implement (501), anything else a bad argument (400).
 */
export function checkQueryParams(operation: string, query: URLSearchParams, target: 'service' | 'bucket' | 'object', method: string): void {
  const allowed = OPERATION_PARAMS[operation] ?? [];
  for (const name of query.keys()) {
    if (ALWAYS.has(name.toLowerCase()) || allowed.includes(name)) continue;
    if (S3_SUBRESOURCES.has(name)) {
      throw new S3Error('NotImplemented', `${method} on the ${target} subresource ?${name} is not implemented by Stratus.`, 501);
    }
    throw new S3Error('InvalidArgument', `The query parameter ${name} is not supported by ${operation}.`, 400, { ArgumentName: name });
  }
}

/** The first S3 subresource among the parameters, if any, leaving out those in `except`. */
export function subresourceOf(query: URLSearchParams, except: ReadonlySet<string> = new Set()): string | undefined {
  for (const name of query.keys()) if (S3_SUBRESOURCES.has(name) && !except.has(name)) return name;
  return undefined;
}

/**
 * `versionId`: objects here have one version, listed with the id `null` (ListObjectVersions), so `null` names
 * the current object and any other id is refused as S3 refuses an id it never issued.
 */
export function checkVersionId(query: URLSearchParams): void {
  const id = query.get('versionId');
  if (id !== null && id !== 'null') throw new S3Error('InvalidArgument', 'Invalid version id specified', 400, { ArgumentName: 'versionId', ArgumentValue: id });
}
