/** What `stratus backup` copies from a data folder, and where each piece goes back on restore. */
import { CREDENTIALS_FILE } from '../../accounts/bootstrap.js';
import { S3_CREDENTIALS_FILE } from '../../s3/credentials.js';
import { SECRETS_KEY_FILE } from '../../shared/secret-box.js';

/** Accounts, zones, records, tokens, Workers (src/db). */
export const CORE_DATABASE = 'stratus.sqlite';
/** Bucket metadata (src/store/adapters/sqlite-schema.ts). */
export const BUCKETS_DATABASE = 'buckets.sqlite';
/** Folder of blobs inside the backup (and the default `--blobs-dir` inside a data folder). */
export const BLOBS = 'blobs';
/** Generated secrets kept beside the databases (mode 0600). */
export const SECRET_FILES: readonly string[] = [CREDENTIALS_FILE, S3_CREDENTIALS_FILE, SECRETS_KEY_FILE];

/** Top-level entries of a data folder that the backup accounts for (copied, or journals of a copied database). */
export function isKnownEntry(name: string): boolean {
  if (name === BLOBS || SECRET_FILES.includes(name)) return true;
  return [CORE_DATABASE, BUCKETS_DATABASE].some((db) => name === db || name === `${db}-wal` || name === `${db}-shm` || name === `${db}-journal`);
}

/** `blobs/<2 hex>/<id>`, the path of a blob in a backup (and below a data folder's default blobs folder). */
export function blobPath(blobId: string): string {
  return `${BLOBS}/${blobId.slice(0, 2)}/${blobId}`;
}
