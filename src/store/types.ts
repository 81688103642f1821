/**
 * Public value types of the bucket binding (the contract's StoreObject, StoreObjectBody and friends).
 * Shapes follow ../shared/reference/store-binding.md §5; names follow the contract.
 */
import type { LifecycleRule } from './lifecycle/rules.js';
import type { PartListing, UploadInfo, UploadListOptions } from './upload-listing-types.js';

export type * from './upload-listing-types.js';

/** The six HTTP metadata fields an object carries (§7.3). */
export interface StoreHTTPMetadata {
  contentType?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  cacheControl?: string;
  cacheExpiry?: Date;
}

/** A range request: offset with optional length, optional offset with length, or suffix alone. */
export type StoreRange = { offset: number; length?: number } | { offset?: number; length: number } | { suffix: number };

/** The object form of a precondition (§4.1). */
export interface StoreConditional {
  etagMatches?: string;
  etagDoesNotMatch?: string;
  uploadedBefore?: Date;
  uploadedAfter?: Date;
  secondsGranularity?: boolean;
}

/** Stored checksums: ArrayBuffer getters plus `toJSON()` in lowercase hex. */
export interface StoreChecksums {
  readonly md5?: ArrayBuffer;
  readonly sha1?: ArrayBuffer;
  readonly sha256?: ArrayBuffer;
  readonly sha384?: ArrayBuffer;
  readonly sha512?: ArrayBuffer;
  toJSON(): StoreStringChecksums;
}

/** Checksums in lowercase hex, as `StoreChecksums.toJSON()` returns them. */
export interface StoreStringChecksums {
  md5?: string;
  sha1?: string;
  sha256?: string;
  sha384?: string;
  sha512?: string;
}

/** The storage classes a bucket accepts. */
export type StorageClass = 'Standard' | 'InfrequentAccess';

/** Metadata of a stored object. Every field is read-only. */
export interface StoreObject {
  readonly key: string;
  readonly version: string;
  readonly size: number;
  readonly etag: string;
  readonly httpEtag: string;
  readonly checksums: StoreChecksums;
  readonly uploaded: Date;
  readonly httpMetadata?: StoreHTTPMetadata | undefined;
  readonly customMetadata?: Record<string, string> | undefined;
  readonly range?: { offset: number; length: number } | undefined;
  readonly storageClass: string;
  readonly ssecKeyMd5?: string | undefined;
  /** Applies the object's HTTP metadata to the given headers. */
  writeHttpMetadata(headers: Headers): void;
}

/** The part layout of a stored object (`BucketStore.objectParts`). */
export interface StoreObjectLayout {
  etag: string;
  /** Sizes of a multipart object's parts in order; null for a single-part object. */
  partSizes: number[] | null;
  /** Checksums of those parts (lowercase hex by algorithm, `{}` for a part without any); null for a single-part object. */
  partChecksums?: Array<Readonly<Record<string, string>>> | null;
}

/** A stored object with its body (returned by `get` when the preconditions hold). */
export interface StoreObjectBody extends StoreObject {
  readonly body: ReadableStream<Uint8Array>;
  readonly bodyUsed: boolean;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  json<T = unknown>(): Promise<T>;
  blob(): Promise<Blob>;
}

/** An SSE-C key: 64 lowercase hex characters or 32 bytes. */
export type SsecKey = ArrayBuffer | ArrayBufferView | string;

/** Options of `get`. */
export interface StoreGetOptions {
  onlyIf?: StoreConditional | Headers;
  range?: StoreRange | Headers;
  ssecKey?: SsecKey;
}

/** A hash option value: binary digest or hex string. */
export type HashInput = ArrayBuffer | ArrayBufferView | string;

/** Options of `put`. */
export interface StorePutOptions {
  onlyIf?: StoreConditional | Headers;
  httpMetadata?: StoreHTTPMetadata | Headers;
  customMetadata?: Record<string, string>;
  md5?: HashInput;
  sha1?: HashInput;
  sha256?: HashInput;
  sha384?: HashInput;
  sha512?: HashInput;
  storageClass?: string;
  ssecKey?: SsecKey;
  /**
   * Stratus extension for the S3 edge: checksums of the body verified by the caller while it streamed, as
   * lowercase hex by algorithm (`crc32`, `crc32c`, `crc64nvme`, `sha1`, `sha256`), asked for once the body has
   * been read whole and stored with the object (`sha1`/`sha256` then show in `checksums`).
   */
  extraChecksums?: () => Record<string, string> | undefined;
}

/** Options of `createMultipartUpload`. */
export interface StoreMultipartOptions {
  httpMetadata?: StoreHTTPMetadata | Headers;
  customMetadata?: Record<string, string>;
  storageClass?: string;
  ssecKey?: SsecKey;
  /**
   * Stratus extension for the S3 edge: the upload's flexible checksum algorithm (`crc32`, `crc32c`,
   * `crc64nvme`, `sha1`, `sha256`) and type (`COMPOSITE`, `FULL_OBJECT`), validated by the caller and kept with
   * the upload (S3's `x-amz-checksum-algorithm` and `x-amz-checksum-type`).
   */
  checksumAlgorithm?: string;
  checksumType?: string;
}

/** Options of `uploadPart`. */
export interface StoreUploadPartOptions {
  ssecKey?: SsecKey;
  /** Stratus extension for the S3 edge, as `StorePutOptions.extraChecksums`: the part's verified checksums, kept with it. */
  extraChecksums?: () => Record<string, string> | undefined;
}

/** A stored part as the S3 edge's completion sees it (sorted by part number). */
export interface StorePartChecksums {
  partNumber: number;
  size: number;
  /** Verified checksums of the part, lowercase hex by algorithm. */
  checksums: Readonly<Record<string, string>>;
}

/** Stratus extension for S3's CompleteMultipartUpload. */
export interface StoreCompleteOptions {
  /** Completes only when this holds for the key's current object (checked under the completion's lock). */
  onlyIf?: StoreConditional | Headers | undefined;
  /**
   * The object's checksums (lowercase hex by algorithm; a composite one suffixed `-<parts>`), made from the upload's
   * settings and the parts used, under the completion's lock; may throw to refuse the completion.
   */
  objectChecksums?: (upload: { checksumAlgorithm: string | null; checksumType: string | null }, parts: readonly StorePartChecksums[]) => Record<string, string>;
}

/** Options of `list`. */
export interface StoreListOptions {
  limit?: number;
  prefix?: string;
  cursor?: string;
  delimiter?: string;
  startAfter?: string;
  include?: ('httpMetadata' | 'customMetadata')[];
}

/** Result of `list`: `cursor` exists only when `truncated` is true. */
export type StoreObjects = {
  objects: StoreObject[];
  delimitedPrefixes: string[];
} & ({ truncated: true; cursor: string } | { truncated: false });

/** A part returned by `uploadPart`, passed back to `complete`. */
export interface StoreUploadedPart {
  partNumber: number;
  etag: string;
  /**
   * Stratus extension for S3's CompleteMultipartUpload: checksums the client lists for the part (lowercase hex by
   * algorithm); each must equal the stored part's (InvalidPart otherwise). `uploadPart` never returns it.
   */
  checksums?: Record<string, string>;
}

/** A multipart upload handle. */
export interface StoreMultipartUpload {
  readonly key: string;
  readonly uploadId: string;
  uploadPart(partNumber: number, value: StorePartValue, options?: StoreUploadPartOptions): Promise<StoreUploadedPart>;
  abort(): Promise<void>;
  complete(uploadedParts: StoreUploadedPart[]): Promise<StoreObject>;
  /** Stratus extension for S3: `complete` only when `onlyIf` holds for the key's current object; null when it does not. */
  completeIf?(uploadedParts: StoreUploadedPart[], onlyIf: StoreConditional | Headers | undefined, options?: StoreCompleteOptions): Promise<StoreObject | null>;
}

/** Values `put` accepts. */
export type StorePutValue = ReadableStream | ArrayBuffer | ArrayBufferView | string | null | undefined | Blob;

/** Values `uploadPart` accepts (no null). */
export type StorePartValue = ReadableStream | ArrayBuffer | ArrayBufferView | string | Blob;

/** One bucket, with exactly the binding's methods. */
export interface StoreBucket {
  head(key: string): Promise<StoreObject | null>;
  get(key: string, options?: StoreGetOptions): Promise<StoreObjectBody | StoreObject | null>;
  put(key: string, value: StorePutValue, options?: StorePutOptions): Promise<StoreObject | null>;
  delete(keys: string | string[]): Promise<void>;
  list(options?: StoreListOptions): Promise<StoreObjects>;
  createMultipartUpload(key: string, options?: StoreMultipartOptions): Promise<StoreMultipartUpload>;
  resumeMultipartUpload(key: string, uploadId: string): StoreMultipartUpload;
}

/** Per-bucket settings given when a bucket is bound. */
export interface BucketOptions {
  /** The script's compatibility date (YYYY-MM-DD); decides whether list honours `include`. Default: today. */
  compatibilityDate?: string;
  /** Compatibility flags: `store_list_honor_include`, `store_list_prefixes_keep_delimiter`. */
  compatibilityFlags?: string[];
  /** Storage class used when a put does not name one. Default `Standard`. */
  defaultStorageClass?: StorageClass;
}

/** A bucket of the registry (S3's ListBuckets and HeadBucket). */
export interface BucketInfo {
  name: string;
  /** When the bucket was created, or first written to if it was never created explicitly. */
  created: Date;
  /** Default storage class of objects put without one, when set (absent: Standard). */
  storageClass?: StorageClass;
  /** Location hint given at creation (lowercase), if any. */
  location?: string;
}

/** What {@link BucketNamespace.createBucket} may set besides the name. */
export interface CreateBucketOptions {
  /** Default storage class of new objects (default Standard). */
  storageClass?: StorageClass;
  /** A location hint (kept and reported; there is one location). */
  location?: string;
  /** Lifecycle rules; default: the rule aborting incomplete multipart uploads after 7 days. */
  lifecycle?: LifecycleRule[];
}

/** What one lifecycle pass did. */
export interface LifecycleReport {
  deletedObjects: number;
  transitionedObjects: number;
  abortedUploads: number;
}

/**
 * One CORS rule of a bucket, as S3's `CORSRule` (PutBucketCors). The store keeps rules as given, in order;
 * validating them (methods, wildcards) is the S3 layer's job.
 */
export interface BucketCorsRule {
  id?: string;
  /** Origins, each possibly holding one `*` (`*`, `https://*.example.com`). */
  allowedOrigins: string[];
  /** `GET`, `PUT`, `HEAD`, `POST`, `DELETE`. */
  allowedMethods: string[];
  /** Request headers a preflight may ask for, each possibly holding one `*`. */
  allowedHeaders: string[];
  /** Response headers browsers may expose to scripts. */
  exposeHeaders: string[];
  /** How long browsers may cache a preflight answer. */
  maxAgeSeconds?: number;
}

/**
 * A set of buckets addressed by name: the whole store (every name, the library's flat namespace) or one
 * account's buckets ({@link BucketStore.forAccount}).
 */
export interface BucketNamespace {
  /** The bucket with this name (registered on first write; every name is valid). */
  bucket(name: string, opts?: BucketOptions): StoreBucket;
  /** Every registered bucket, by name in UTF-8 byte order. */
  listBuckets(): Promise<BucketInfo[]>;
  /** Registers a bucket, dated now; 'exists' when it already was (no name check: the S3 layer validates names). */
  createBucket(name: string, opts?: CreateBucketOptions): Promise<'created' | 'exists'>;
  /**
   * Removes a bucket from the registry unless it holds an object or an active (unexpired) multipart upload.
   * Its finished upload records go with it.
   */
  deleteBucket(name: string): Promise<'deleted' | 'missing' | 'not-empty'>;
  /** The registered bucket with this name, or null. */
  bucketInfo(name: string): Promise<BucketInfo | null>;
  /** The bucket's CORS rules, or null when it has none (or does not exist). */
  getBucketCors(name: string): Promise<BucketCorsRule[] | null>;
  /** Replaces the bucket's CORS rules (null or an empty list removes them); 'missing' when the bucket does not exist. */
  putBucketCors(name: string, rules: BucketCorsRule[] | null): Promise<'ok' | 'missing'>;
  /**
   * Active, unexpired multipart uploads of a bucket, ordered by key (UTF-8 bytes), initiation time, then
   * uploadId, starting after the markers as S3's ListMultipartUploads does. An unknown bucket lists nothing.
   */
  listUploads(bucket: string, opts?: UploadListOptions): Promise<UploadInfo[]>;
  /**
   * The parts stored so far of an active upload of `key`, by part number (after `partNumberMarker`, at most
   * `limit`), with the upload's initiation time; null when no such upload is active.
   */
  listParts(bucket: string, key: string, uploadId: string, opts?: { partNumberMarker?: number; limit?: number }): Promise<PartListing | null>;
  /**
   * Where an upload of `key` stands: 'active', 'aborted' (or expired), 'completed' with the key's current object
   * when that object is still the upload's result (S3 answers a repeated completion with it), or 'missing'.
   */
  uploadOutcome(bucket: string, key: string, uploadId: string, opts?: { /** false: read only, without first aborting expired uploads (a write). */ expire?: boolean }): Promise<UploadOutcome>;
  /**
   * Deletes keys, each only if its etag (lowercase hex, no quotes) is still the one given (`*`: only if it
   * exists); without an etag unconditionally. The check and the delete are one atomic step.
   */
  deleteObjectsIf(bucket: string, entries: ConditionalDelete[]): Promise<Array<{ key: string; outcome: 'deleted' | 'missing' | 'mismatch' }>>;
  /**
   * The etag of the key's object and, for an object made by a multipart upload, the sizes of its parts in
   * order (null for a single-part object) with each part's verified flexible checksums (lowercase hex by
   * algorithm, `{}` when it has none); null when the key has no object. For S3's `partNumber` reads and
   * GetObjectAttributes.
   */
  objectParts(bucket: string, key: string): Promise<StoreObjectLayout | null>;
  /** The bucket's lifecycle rules ([] when it has none), or null when the bucket does not exist. */
  getBucketLifecycle(name: string): Promise<LifecycleRule[] | null>;
  /** Replaces the bucket's lifecycle rules (validated by the caller: `parseLifecycleRules`); 'missing' when the bucket does not exist. */
  putBucketLifecycle(name: string, rules: LifecycleRule[]): Promise<'ok' | 'missing'>;
  /** Sets the bucket's default storage class; 'missing' when the bucket does not exist. */
  setBucketStorageClass(name: string, storageClass: StorageClass): Promise<'ok' | 'missing'>;
}

/** An open data folder holding any number of buckets. */
export interface BucketStore extends BucketNamespace {
  /**
   * The buckets of one account (names unique within it). Inside the store such a bucket is named
   * `<accountId>/<name>`, so `store.bucket('<accountId>/<name>')` is the same bucket (docs/store.md, "Accounts").
   */
  forAccount(accountId: string): BucketNamespace;
  /** Moves the buckets written before buckets belonged to accounts into `accountId`, once per database; returns how many moved. */
  adoptBuckets(accountId: string): Promise<number>;
  /** Applies every bucket's lifecycle rules now (also run in the background when `lifecycleIntervalMs` is set). */
  applyLifecycle(): Promise<LifecycleReport>;
  /** Runs the orphan and expiry sweep now (also run at open). */
  sweep(): Promise<SweepReport>;
  /** Finishes background deletions and closes the database. */
  close(): Promise<void>;
}

/** One key of {@link BucketStore.deleteObjectsIf}. */
export interface ConditionalDelete {
  key: string;
  etag?: string | undefined;
}

/** See {@link BucketStore.uploadOutcome}. */
export type UploadOutcome =
  | {
      state: 'active';
      /** Hex MD5 of the upload's SSE-C key, or null. */
      ssecKeyMd5: string | null;
      /** The upload's flexible checksum algorithm and type (S3), or null. */
      checksumAlgorithm: string | null;
      checksumType: string | null;
    }
  | { state: 'aborted' | 'missing' }
  | { state: 'completed'; object: StoreObject | null };

/** What one sweep removed. */
export interface SweepReport {
  orphanBlobs: number;
  garbageBlobs: number;
  expiredUploads: number;
}
