/**
 * One account's buckets as a namespace of their own. Inside the store an account's bucket `photos` is named
 * `<account id>/photos` (32 lowercase hex digits, a slash, the name); every table stays keyed by that one
 * string, so object, upload and listing code is the same for the library's flat names and for accounts.
 * The view adds the prefix on the way in and strips it on the way out, so two accounts can each have a
 * bucket `photos` and neither can name the other's.
 */
import type { BucketInfo, BucketNamespace, BucketOptions, StoreBucket } from './types.js';

/** An account id as the store accepts it: 32 lowercase hex digits. */
export const ACCOUNT_ID = /^[0-9a-f]{32}$/;

/** The store name of an account's bucket. */
export function accountBucketName(accountId: string, name: string): string {
  return `${accountId}/${name}`;
}

/** The namespace of `accountId` over the flat `root`; `listPrefixed` lists the root's buckets whose name starts with a prefix. */
export function accountNamespace(root: BucketNamespace, listPrefixed: (prefix: string) => Promise<BucketInfo[]>, accountId: string): BucketNamespace {
  if (!ACCOUNT_ID.test(accountId)) throw new TypeError(`Not an account id: ${String(accountId)}`);
  const prefix = `${accountId}/`;
  const n = (name: string): string => prefix + String(name);
  const strip = (info: BucketInfo): BucketInfo => ({ ...info, name: info.name.slice(prefix.length) });
  return {
    bucket: (name, opts) => root.bucket(n(name), opts),
    listBuckets: async () => (await listPrefixed(prefix)).map(strip),
    createBucket: (name, opts) => root.createBucket(n(name), opts),
    deleteBucket: (name) => root.deleteBucket(n(name)),
    bucketInfo: async (name) => {
      const info = await root.bucketInfo(n(name));
      return info && strip(info);
    },
    getBucketCors: (name) => root.getBucketCors(n(name)),
    putBucketCors: (name, rules) => root.putBucketCors(n(name), rules),
    listUploads: (bucket, opts) => root.listUploads(n(bucket), opts),
    listParts: (bucket, key, uploadId, opts) => root.listParts(n(bucket), key, uploadId, opts),
    uploadOutcome: (bucket, key, uploadId, opts) => root.uploadOutcome(n(bucket), key, uploadId, opts),
    deleteObjectsIf: (bucket, entries) => root.deleteObjectsIf(n(bucket), entries),
    objectParts: (bucket, key) => root.objectParts(n(bucket), key),
    getBucketLifecycle: (name) => root.getBucketLifecycle(n(name)),
    putBucketLifecycle: (name, rules) => root.putBucketLifecycle(n(name), rules),
    setBucketStorageClass: (name, cls) => root.setBucketStorageClass(n(name), cls),
  };
}

/** `options` with the bucket's own default storage class from its registry entry: what a put without one stores. */
export function withBucketDefaults(info: BucketInfo | null, options: BucketOptions = {}): BucketOptions {
  return info?.storageClass ? { ...options, defaultStorageClass: info.storageClass } : options;
}

/**
 * The bucket `name` of `buckets` as a script's binding sees it: with the bucket's own default storage class
 * (read now; a bucket that does not exist yet gets Standard, and each operation reports it missing).
 */
export async function bindingBucket(buckets: BucketNamespace, name: string, options: BucketOptions = {}): Promise<StoreBucket> {
  return buckets.bucket(name, withBucketDefaults(await buckets.bucketInfo(name), options));
}
