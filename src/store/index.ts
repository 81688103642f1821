/**
 * The bucket binding library: `openBucketStore({ dataDir })` opens a data folder and `store.bucket(name)`
 * returns an object with exactly the binding's methods (head, get, put, delete, list,
 * createMultipartUpload, resumeMultipartUpload). `store.bucket(name)` names a bucket of no account (the flat
 * namespace only the library reaches); `store.forAccount(id).bucket(name)` the account's bucket that S3, the v4
 * API, deployed scripts and `stratus dev` see. See docs/store.md, "Accounts".
 */
export { openBucketStore, type OpenBucketStoreOptions } from './open.js';
export { FixedLengthStream, withKnownLength, knownLength } from './value/known-length.js';
export { parseLifecycleRules, defaultLifecycleRules, withoutS3Form, MAX_LIFECYCLE_RULES, LifecycleRulesError, type LifecycleRule, type LifecycleCondition } from './lifecycle/rules.js';
export { accountBucketName, bindingBucket, withBucketDefaults } from './namespace.js';
export { bucketContents, notEmptyMessage, type BucketContents } from './bucket-contents.js';
export type {
  BucketCorsRule,
  BucketInfo,
  BucketNamespace,
  CreateBucketOptions,
  LifecycleReport,
  BucketOptions,
  BucketStore,
  HashInput,
  SsecKey,
  StorageClass,
  StoreBucket,
  StoreChecksums,
  StoreConditional,
  StoreGetOptions,
  StoreHTTPMetadata,
  StoreListOptions,
  StoreMultipartOptions,
  StoreMultipartUpload,
  StoreObject,
  StoreObjectBody,
  StoreObjectLayout,
  StoreObjects,
  StorePartValue,
  StorePutOptions,
  StorePutValue,
  StoreRange,
  StoreStringChecksums,
  StoreUploadedPart,
  StoreUploadPartOptions,
  SweepReport,
  UploadInfo,
  PartInfo,
  PartListing,
  StoreCompleteOptions,
  StorePartChecksums,
  UploadListOptions,
  UploadOutcome,
  ConditionalDelete,
} from './types.js';
