/** Library entry point: start Stratus from Node code. Store and runtime exports are added by their modules. */
export { startStratus, type RunningStratus } from './main.js';
export { loadConfig, type Config } from './config/config.js';
/** Loggers for startStratus (pino): `createLogger('info')`, or `silentLogger()`. */
export { createLogger, silentLogger, type Logger } from './shared/logger.js';

/**
 * Open a data folder's buckets from Node code (tests, tools): the same binding scripts get as env.<BINDING>.
 * `store.forAccount(accountId).bucket(name)` is an account's bucket, the one S3, the v4 API, deployed scripts and
 * `stratus dev` use; `store.bucket(name)` is the library's flat namespace, a bucket of no account that only the
 * library reaches (docs/store.md, "Accounts").
 */
export {
  openBucketStore, FixedLengthStream, withKnownLength,
  type OpenBucketStoreOptions, type BucketStore, type BucketOptions, type StoreBucket, type StoreObject, type StoreObjectBody,
  type StoreObjects, type StoreMultipartUpload, type StoreUploadedPart, type StoreConditional, type StoreRange,
  type StoreHTTPMetadata, type StoreChecksums, type StoreGetOptions, type StorePutOptions, type StoreListOptions,
  type StoreMultipartOptions, type StorageClass, type BucketNamespace, type BucketInfo, type CreateBucketOptions,
} from './store/index.js';
/** Run an edge script with its bucket bindings (what `stratus dev` does). */
export { startDevServer, type DevServerOptions, type RunningDevServer, loadScriptConfig, type ScriptConfig } from './runtime/index.js';
