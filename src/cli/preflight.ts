/**
 * Checks before `stratus serve` (and `stratus user`) start: the data folder is a writable folder, the
 * PostgreSQL database answers, the S3 blob store's bucket is there. Each failure is a ConfigError of one line
 * naming the flag and what to do, so that the CLI exits 2 without a stack trace instead of failing halfway
 * through the start (or, for the blob store, starting and answering 503).
 */
import fs from 'node:fs';
import pg from 'pg';
import { ConfigError, type Config } from '../config/config.js';

/** How long a store gets to answer the check (ms). */
const CHECK_TIMEOUT_MS = 10_000;

/** Throws ConfigError for the first store that cannot be used. */
export async function preflight(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'blobsS3'>): Promise<void> {
  checkDataDir(config.dataDir);
  if (config.databaseUrl !== undefined) await checkDatabase(config.databaseUrl);
  if (config.blobsS3) await checkBlobStore(config.blobsS3);
}

/** `--data-dir` exists (or can be made) as a folder this process can write. */
export function checkDataDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOTDIR' || e.code === 'EEXIST' ? 'is not a folder (or lies below a file)'
      : e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS' ? 'is not writable by this user' : e.message;
    throw new ConfigError(`--data-dir ${dir} ${why}: choose a folder this user may write`);
  }
}

/** `--database-url` is a PostgreSQL URL whose server answers. */
export async function checkDatabase(url: string): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('--database-url must be a URL such as postgres://user@host:5432/db');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError(`--database-url must start with postgres:// or postgresql://, got ${parsed.protocol}//…`);
  }
  const where = `${parsed.hostname || 'localhost'}:${parsed.port || 5432}${parsed.pathname}`;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new ConfigError(`--database-url: cannot use the database at ${where}: ${reason(err)}; check that PostgreSQL runs there and accepts this user`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** `--blobs-s3-bucket` can be listed at its endpoint with its credentials. */
export async function checkBlobStore(b: NonNullable<Config['blobsS3']>): Promise<void> {
  // The S3 SDK is loaded only by a start that uses a blob store.
  const [{ ListObjectsV2Command }, { createS3Client }] = await Promise.all([import('@aws-sdk/client-s3'), import('../store/adapters/s3-client.js')]);
  const client = createS3Client({
    bucket: b.bucket, region: b.region, forcePathStyle: b.forcePathStyle,
    ...(b.endpoint !== undefined ? { endpoint: b.endpoint } : {}), ...(b.credentials ? { credentials: b.credentials } : {}),
  });
  try {
    await client.send(new ListObjectsV2Command({ Bucket: b.bucket, Prefix: b.prefix, MaxKeys: 1 }), { abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
  } catch (err) {
    throw new ConfigError(`--blobs-s3-bucket: cannot use bucket ${b.bucket} at ${b.endpoint ?? 'AWS S3'}: ${reason(err)}; check --blobs-s3-endpoint, the bucket and its credentials`);
  } finally {
    client.destroy();
  }
}

/** A short reason from a client error (its code and message, without a stack). */
function reason(err: unknown): string {
  const e = err as { code?: string; name?: string; message?: string; errors?: unknown[] };
  // Node's "connect" errors to several addresses (localhost: ::1 and 127.0.0.1) are an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0) return reason(e.errors[0]);
  const message = (e.message ?? String(err)).split('\n')[0]!;
  return e.code && !message.includes(e.code) ? `${e.code} ${message}` : message || e.name || 'failed';
}

