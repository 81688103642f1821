/** The `--blobs-s3-*` flags: object bodies kept in an S3-compatible store rather than the data folder. */
import { ConfigError } from './flag-errors.js';

/** Where object bodies go when they live in an S3-compatible store. */
export interface BlobsS3Config {
  bucket: string;
  /** Service URL; undefined means AWS S3. */
  endpoint: string | undefined;
  region: string;
  prefix: string;
  /** Undefined: the AWS SDK's credential chain (environment, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
}

/** The `--blobs-s3-*` flags, or undefined without `--blobs-s3-bucket`. */
export function blobsS3Config(get: (name: string) => string | undefined): BlobsS3Config | undefined {
  const bucket = get('blobs-s3-bucket');
  if (bucket === undefined) return undefined;
  const endpoint = get('blobs-s3-endpoint');
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint)) throw new ConfigError(`--blobs-s3-endpoint must be an http(s) URL, got "${endpoint}"`);
  const accessKeyId = get('blobs-s3-access-key-id');
  const secretAccessKey = get('blobs-s3-secret-access-key');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) throw new ConfigError('--blobs-s3-access-key-id and --blobs-s3-secret-access-key go together');
  const pathStyle = get('blobs-s3-path-style');
  return {
    bucket,
    endpoint,
    region: get('blobs-s3-region') ?? 'auto',
    prefix: get('blobs-s3-prefix') ?? 'blobs/',
    credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: pathStyle === undefined ? endpoint !== undefined : pathStyle === 'true',
  };
}
