/**
 * Listings of multipart uploads in progress and of their parts (S3's ListMultipartUploads and ListParts), as
 * `BucketStore.listUploads` and `BucketStore.listParts` return them. Re-exported by types.ts.
 */

/** Options of `BucketStore.listUploads`, mirroring S3's ListMultipartUploads. */
export interface UploadListOptions {
  /** Only keys starting with this. Default: every key. */
  prefix?: string;
  /** Start after this key (after every upload of it, or after `uploadIdMarker` within it); '' means none. */
  keyMarker?: string;
  /** The last upload of `keyMarker` already listed; ignored without `keyMarker`. */
  uploadIdMarker?: string;
  /** Most uploads returned (ask one more to learn whether the listing is truncated). Default 1000. */
  limit?: number;
}

/** An active multipart upload, as `BucketStore.listUploads` returns it. */
export interface UploadInfo {
  key: string;
  uploadId: string;
  initiated: Date;
  storageClass: string;
}

/** One stored part of an active upload, as `BucketStore.listParts` returns it. */
export interface PartInfo {
  partNumber: number;
  size: number;
  /** Lowercase hex MD5 of the part's bytes. */
  etag: string;
  /** Flexible checksums verified by the S3 edge, lowercase hex by algorithm (absent when none). */
  checksums?: Record<string, string>;
}

/** What `BucketStore.listParts` returns: the upload's settings and a page of its parts. */
export interface PartListing {
  initiated: Date;
  storageClass: string;
  /** The upload's flexible checksum algorithm and type (S3), or null. */
  checksumAlgorithm: string | null;
  checksumType: string | null;
  parts: PartInfo[];
}
