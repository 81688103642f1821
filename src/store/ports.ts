/**
 * Ports of the bucket store: where object metadata and object bodies live. Every adapter passes the shared
 * contract suite in test/store/contract/. Invariants an adapter must keep:
 *  - `putObject`, `deleteObjects`, `completeUpload` are atomic: the `check`/`validate` callback sees the row
 *    that the write replaces, and no other writer (in any process) commits in between.
 *  - a blob id that a committed row no longer references is handed to the garbage list in the same
 *    transaction, so it is deleted later even after a crash.
 *  - a successful object write (`putObject`, `completeUpload`) and `createUpload` register the bucket in the
 *    same transaction when it is not registered yet, so every bucket holding data is listed.
 */

/** Where an object's bytes live: inline in the row, one blob, or the parts of a completed upload. */
export type BodyRef =
  | { kind: 'inline'; data: Uint8Array }
  | { kind: 'blob'; blobId: string }
  | { kind: 'parts'; uploadId: string; parts?: PartRecord[] };

/** Encryption parameters of an SSE-C body (AES-256-CTR). */
export interface SsecInfo {
  /** Lowercase hex MD5 of the key. */
  keyMd5: string;
  /** 16-byte initial counter block, hex. */
  iv: string;
}

/** One stored object version. */
export interface ObjectRecord {
  key: string;
  version: string;
  size: number;
  etag: string;
  /** Upload time, epoch ms. */
  uploaded: number;
  /** Lowercase hex checksums (md5 for single puts, plus any verified extra hash). */
  checksums: Record<string, string>;
  httpMetadata: Record<string, string | number>;
  customMetadata: Record<string, string>;
  storageClass: string;
  ssec: SsecInfo | null;
  body: BodyRef;
}

/** A multipart upload's row. */
export interface UploadRecord {
  uploadId: string;
  key: string;
  /** Creation time, epoch ms. */
  created: number;
  state: 'active' | 'completed' | 'aborted';
  httpMetadata: Record<string, string | number>;
  customMetadata: Record<string, string>;
  storageClass: string;
  /** Hex MD5 of the SSE-C key the upload was created with. */
  ssecKeyMd5: string | null;
  /** S3's flexible checksum of the upload (`crc32`, `crc32c`, `crc64nvme`, `sha1`, `sha256`), or null (schema step 4). */
  checksumAlgorithm?: string | null;
  /** How the object's checksum is made from the parts': `COMPOSITE` or `FULL_OBJECT`, or null without an algorithm. */
  checksumType?: string | null;
}

/** One uploaded part. */
export interface PartRecord {
  partNumber: number;
  size: number;
  /** Lowercase hex MD5 of the plaintext part; also its etag. */
  etag: string;
  blobId: string;
  /** SSE-C counter block of this part, hex. */
  iv: string | null;
  /** Flexible checksums of the part's plaintext verified by the S3 edge, lowercase hex by algorithm (schema step 4). */
  checksums?: Record<string, string>;
}

/** Options of a list scan. Keys compare as UTF-8 bytes. */
export interface ScanOptions {
  prefix: string;
  /** Return keys strictly greater than this (already combined with the cursor). */
  after?: string | undefined;
  /** Return keys greater than or equal to this. */
  from?: string | undefined;
  limit: number;
}

/** A registered bucket. */
export interface BucketRecord {
  name: string;
  /** Creation time, epoch ms. */
  created: number;
  /** Default storage class of new objects (null: Standard, for buckets registered by a first write). */
  storageClass?: string | null;
  /** Location hint given at creation (lowercase), or null. */
  location?: string | null;
}

/** What a bucket is created with besides its name. */
export interface NewBucketSettings {
  storageClass?: string;
  location?: string;
  /** Lifecycle rules, as stored (opaque JSON text). */
  lifecycle?: string;
}

/** Options of an upload listing (S3's ListMultipartUploads). Keys compare as UTF-8 bytes. */
export interface UploadScanOptions {
  prefix: string;
  /** Start after this key: with `uploadIdMarker`, after that upload of the key; alone, after every upload of the key. */
  keyMarker?: string | undefined;
  /** The last upload already returned (ignored without `keyMarker`). */
  uploadIdMarker?: string | undefined;
  limit: number;
}

/** Outcome of a bucket deletion. */
export type DeleteBucketResult = 'deleted' | 'missing' | 'not-empty';

/** Outcome of a conditional write. */
export type SwapResult = { ok: true; replaced: ObjectRecord | null } | { ok: false; current: ObjectRecord | null };

/**
 * Turns a multipart upload (null when unknown) and its stored parts into the object to store and the part
 * numbers it uses; throws the binding's error when the completion is invalid. `current` is the key's object
 * that the completion would replace, read under the same lock (for conditional completes).
 */
export type CompletionBuilder = (upload: UploadRecord | null, parts: PartRecord[], current: ObjectRecord | null) => { record: ObjectRecord; used: number[] };

/** Whether a conditional delete may remove `key` (its current row, null when absent). */
export type DeleteCheck = (key: string, current: ObjectRecord | null) => boolean;

/** Object and multipart metadata. */
export interface MetadataStore {
  /**
   * The current row of a key. For a multipart object `body.parts` holds its parts, read in the same snapshot
   * as the row (a concurrent overwrite must not leave a reader with a row and no parts).
   */
  getObject(bucket: string, key: string): Promise<ObjectRecord | null>;
  /** Writes `record` iff `check(current)` returns true, in one atomic step. */
  putObject(bucket: string, record: ObjectRecord, check: (current: ObjectRecord | null) => boolean): Promise<SwapResult>;
  /**
   * Deletes the keys (missing ones ignored) in one transaction. With `check`, a key is deleted only when
   * `check(key, current)` holds for its current row (null when absent), read under the same lock; the keys it
   * refused are returned with their rows.
   */
  deleteObjects(bucket: string, keys: string[], check?: DeleteCheck): Promise<Array<{ key: string; current: ObjectRecord | null }>>;
  /** Objects in UTF-8 byte order of key. */
  scanObjects(bucket: string, opts: ScanOptions): Promise<ObjectRecord[]>;
  /** The greatest key that starts with `prefix` (used to skip a delimited group). */
  lastKeyWithPrefix(bucket: string, prefix: string): Promise<string | null>;

  createUpload(bucket: string, upload: UploadRecord): Promise<void>;
  getUpload(bucket: string, uploadId: string): Promise<UploadRecord | null>;
  /** Stores a part if the upload is active for that key; the replaced part's blob goes to garbage. */
  putPart(bucket: string, uploadId: string, key: string, part: PartRecord, now: number, maxAgeMs: number): Promise<'ok' | 'no-upload'>;
  /** The parts of an upload, by part number. */
  listParts(bucket: string, uploadId: string): Promise<PartRecord[]>;
  /**
   * Completes an upload atomically: loads the upload and its parts, calls `build` (which validates and may
   * throw), stores the object, marks the upload completed and discards parts not used.
   */
  completeUpload(bucket: string, uploadId: string, key: string, now: number, maxAgeMs: number, build: CompletionBuilder): Promise<ObjectRecord>;
  /** Marks an active upload aborted and discards its parts. Returns the upload as it was (null if unknown). */
  abortUpload(bucket: string, uploadId: string, key: string): Promise<UploadRecord | null>;
  /** Aborts every active upload created before `createdBefore`; returns how many. */
  expireUploads(createdBefore: number): Promise<number>;

  /** Registers a bucket; true when it was created, false when it already existed. */
  createBucket(name: string, created: number, settings?: NewBucketSettings): Promise<boolean>;
  /** A registered bucket, or null. */
  getBucket(name: string): Promise<BucketRecord | null>;
  /** Every registered bucket whose name starts with `prefix` (default: all), by name in UTF-8 byte order. */
  listBuckets(prefix?: string): Promise<BucketRecord[]>;
  /** Sets a registered bucket's default storage class; false when the bucket does not exist. */
  setBucketStorageClass(name: string, storageClass: string): Promise<boolean>;
  /** The bucket's lifecycle rules as stored (opaque text), or null when it has none or does not exist. */
  getBucketLifecycle(name: string): Promise<string | null>;
  /** Sets (null: removes) a registered bucket's lifecycle rules; false when the bucket does not exist. */
  setBucketLifecycle(name: string, lifecycle: string | null): Promise<boolean>;
  /** Names of the buckets that have lifecycle rules. */
  bucketsWithLifecycle(): Promise<string[]>;
  /**
   * Schema step 3's data move, once per database: every bucket (registry row, objects, uploads) whose name is
   * not yet account-scoped (`<32 hex>/…`) becomes `<accountId>/<name>`. Returns how many buckets moved; 0
   * when it already ran.
   */
  adoptBuckets(accountId: string): Promise<number>;
  /** Deletes the object iff its current version is `version` (its body goes to garbage); true when deleted. */
  deleteObjectVersion(bucket: string, key: string, version: string): Promise<boolean>;
  /** Sets the storage class of the object iff its current version is `version`; true when changed. */
  setObjectStorageClass(bucket: string, key: string, version: string, storageClass: string): Promise<boolean>;
  /**
   * Takes or renews the lease `name` for `holder` until `now + ttlMs` when it is free, expired or already
   * held by `holder`; false when another holder has it. Nodes sharing the metadata use it so that one of
   * them runs a periodic job.
   */
  takeLease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean>;
  /**
   * Unregisters a bucket atomically, unless it holds an object or an active upload ('not-empty'). Its
   * completed and aborted upload rows go with it.
   */
  deleteBucket(name: string): Promise<DeleteBucketResult>;
  /** The bucket's CORS configuration as stored (opaque text), or null when it has none or does not exist. */
  getBucketCors(name: string): Promise<string | null>;
  /** Sets (null: removes) a registered bucket's CORS configuration; false when the bucket does not exist. */
  setBucketCors(name: string, cors: string | null): Promise<boolean>;
  /**
   * Active uploads of a bucket whose key starts with `prefix`, ordered by key (UTF-8 bytes), creation time,
   * then uploadId, starting after the markers. With `uploadIdMarker`, an upload of `keyMarker` that is no
   * longer active still positions the listing; an unknown one skips the whole key.
   */
  listUploads(bucket: string, opts: UploadScanOptions): Promise<UploadRecord[]>;

  /** Blob ids waiting for deletion since before `before`. */
  takeGarbage(before: number, limit: number): Promise<string[]>;
  /** Forgets garbage entries once their blobs are deleted. */
  dropGarbage(blobIds: string[]): Promise<void>;
  /** The subset of `blobIds` still referenced by an object, a part or the garbage list. */
  referencedBlobs(blobIds: string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

/**
 * A blob opened for reading. Reads stay valid even if the blob is deleted meanwhile, where the backend can
 * pin a blob (files: an open descriptor outlives unlink). A backend that cannot (S3: `s3-blobs.ts`) declares
 * `readsSurviveDelete: false` to the contract suite and must instead fail a read of a deleted or replaced
 * blob with an error, never return short or foreign bytes; a store on it relies on the collector deleting
 * replaced blobs only `gcDelayMs` later, so that delay must outlast reads (docs/store.md, "S3 blobs").
 */
export interface BlobHandle {
  readonly size: number;
  /** Streams `length` bytes from `offset`. */
  read(offset: number, length: number): AsyncIterable<Uint8Array>;
  close(): Promise<void>;
}

/** Immutable bodies with unguessable ids. */
export interface BlobStore {
  /** Writes the bytes durably and returns the new blob's id. Nothing is visible under the id before it resolves. */
  write(source: AsyncIterable<Uint8Array>): Promise<string>;
  open(blobId: string): Promise<BlobHandle>;
  /** Deletes a blob; a missing blob is not an error. */
  delete(blobId: string): Promise<void>;
  /** Every stored blob with its creation time (epoch ms), for the orphan sweep. */
  list(): AsyncIterable<{ blobId: string; created: number }>;
  /** Removes leftovers of interrupted writes older than `before`. Returns how many. */
  sweepIncomplete(before: number): Promise<number>;
}
