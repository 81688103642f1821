/**
 * Two Stratus nodes on one fresh PostgreSQL database and one blobs folder, each with an S3 client: the setup of
 * the tests that put something over S3 on one node and read it on the other.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from './server.js';
import { freshPostgresUrl } from './postgres.js';
import { testS3Client } from './s3-sdk.js';

/** Two nodes sharing a database, their S3 clients, and `stop()`, which stops both and drops the database. */
export interface S3NodePair {
  x: TestServer;
  y: TestServer;
  sx: S3Client;
  sy: S3Client;
  stop(): Promise<void>;
}

/** Starts the pair on a database named after `label` (unique per run). */
export async function startS3NodePair(label: string): Promise<S3NodePair> {
  const { url, drop } = await freshPostgresUrl(label);
  const blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), `stratus-${label}-blobs-`));
  const x = await startTestServer({ flags: { 'database-url': url, 'blobs-dir': blobsDir } });
  const y = await startTestServer({ flags: { 'database-url': url, 'blobs-dir': blobsDir } });
  const sx = testS3Client(x.running.s3Url!);
  const sy = testS3Client(y.running.s3Url!);
  return {
    x, y, sx, sy,
    async stop() {
      sx.destroy();
      sy.destroy();
      await y.stop();
      await x.stop();
      await drop();
      fs.rmSync(blobsDir, { recursive: true, force: true });
    },
  };
}
