/**
 * The probes behind `/readyz` (readiness.ts): the database answers and its schema has every migration this
 * build knows; the blob store answers (a folder we can write, or the S3 bucket); the DNS server has loaded
 * the zone snapshots. Each success or failure is also told to the health state through the adapters it uses.
 */
import fs from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import type { BlobsS3Config } from '../config/config.js';
import { migrationNames } from '../db/migrations.js';
import { createS3Client } from '../store/adapters/s3-client.js';
import { describe, type PartStatus } from './readiness.js';

/** `database` (a query answers) and `migrations` (every migration of this build applied). */
export async function probeDatabase(db: Kysely<any>): Promise<Record<string, PartStatus>> {
  let applied: string[];
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    applied = rows.rows.map((r) => r.name);
  } catch (err) {
    return { database: { ok: false, detail: describe(err) }, migrations: { ok: false, detail: 'unknown: the database does not answer' } };
  }
  const missing = migrationNames().filter((n) => !applied.includes(n));
  return {
    database: { ok: true },
    migrations: missing.length === 0 ? { ok: true, detail: `${applied.length} applied` } : { ok: false, detail: `not applied: ${missing.join(', ')}` },
  };
}

/** `blob-store`: the blobs folder can be written, or the S3 bucket answers. */
export function blobStoreProbe(blobsDir: string, s3: BlobsS3Config | undefined): { probe: () => Promise<Record<string, PartStatus>>; close(): void } {
  if (!s3) {
    return {
      probe: async () => {
        try {
          await fs.promises.access(blobsDir, fs.constants.W_OK | fs.constants.R_OK);
          return { 'blob-store': { ok: true } };
        } catch (err) {
          return { 'blob-store': { ok: false, detail: describe(err) } };
        }
      },
      close: () => {},
    };
  }
  const client = createS3Client({
    bucket: s3.bucket, region: s3.region, forcePathStyle: s3.forcePathStyle,
    ...(s3.endpoint !== undefined ? { endpoint: s3.endpoint } : {}), ...(s3.credentials ? { credentials: s3.credentials } : {}),
  });
  return {
    probe: async () => {
      try {
        await client.send(new HeadBucketCommand({ Bucket: s3.bucket }), { abortSignal: AbortSignal.timeout(5_000) });
        return { 'blob-store': { ok: true } };
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        return { 'blob-store': { ok: false, detail: status ? `the S3 bucket answered ${status}` : describe(err) } };
      }
    },
    close: () => client.destroy(),
  };
}
