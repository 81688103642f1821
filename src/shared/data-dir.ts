/**
 * The layout of a data folder (`--data-dir`), named in this one place: its databases, its blobs folder and the
 * generated secrets kept beside them; what `stratus backup` copies from it and where each piece goes back on
 * restore.
 */
import path from 'node:path';

/** Generated admin credentials (`stratus credentials` prints them). */
export const CREDENTIALS_FILE = 'credentials.json';
/** Generated S3 credentials. */
export const S3_CREDENTIALS_FILE = 's3-credentials.json';
/** The generated key that seals Worker secrets, DNSSEC keys and other values at rest (`--secrets-key`). */
export const SECRETS_KEY_FILE = 'edge-secrets-key.json';

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

/** The path of a part of a data folder: `dataPath(dir, CORE_DATABASE)`. */
export function dataPath(dataDir: string, entry: string): string {
  return path.join(dataDir, entry);
}

/** `blobs/<2 hex>/<id>`, the path of a blob in a backup (and below a data folder's default blobs folder). */
export function blobPath(blobId: string): string {
  return `${BLOBS}/${blobId.slice(0, 2)}/${blobId}`;
}
