/**
 * The S3 API's access key. Configured (`--s3-access-key-id` and `--s3-secret-access-key`, given together) or,
 * when not, generated on the first start into `<dataDir>/s3-credentials.json` (mode 0600) like the production
 * service's key pairs (a 32-hex id and a 64-hex secret) and read back on later starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeSecretJson } from '../shared/secret-file.js';
import { S3_CREDENTIALS_FILE } from '../shared/data-dir.js';

/** An access key pair. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The credentials to accept, and the file they were generated into at this start (if they were). */
export function resolveS3Credentials(opts: { dataDir: string; accessKeyId: string | undefined; secretAccessKey: string | undefined }): S3Credentials & { generatedFile?: string } {
  if ((opts.accessKeyId === undefined) !== (opts.secretAccessKey === undefined)) {
    throw new Error('STRATUS_S3_ACCESS_KEY_ID and STRATUS_S3_SECRET_ACCESS_KEY must be given together (or neither)');
  }
  if (opts.accessKeyId !== undefined && opts.secretAccessKey !== undefined) return { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey };
  const file = path.join(opts.dataDir, S3_CREDENTIALS_FILE);
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<S3Credentials>;
    if (typeof saved.accessKeyId === 'string' && typeof saved.secretAccessKey === 'string') return { accessKeyId: saved.accessKeyId, secretAccessKey: saved.secretAccessKey };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const created: S3Credentials = { accessKeyId: randomBytes(16).toString('hex'), secretAccessKey: randomBytes(32).toString('hex') };
  writeSecretJson(file, created);
  return { ...created, generatedFile: file };
}
