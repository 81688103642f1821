/**
 * Bucket CORS on PostgreSQL-backed bucket metadata: two Stratus nodes share a database, rules put over S3 on
 * one node answer preflights and decorate answers on the other, and deleting them on one stops both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CreateBucketCommand, DeleteBucketCorsCommand, GetBucketCorsCommand, PutBucketCorsCommand, type S3Client } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';

let drop: () => Promise<void>;
let blobsDir: string;
let x: TestServer;
let y: TestServer;
let sx: S3Client;
let sy: S3Client;

beforeAll(async () => {
  let url: string;
  ({ url, drop } = await freshPostgresUrl('s3cors'));
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cors-blobs-'));
  x = await startTestServer({ flags: { 'database-url': url, 'blobs-dir': blobsDir } });
  y = await startTestServer({ flags: { 'database-url': url, 'blobs-dir': blobsDir } });
  sx = testS3Client(x.running.s3Url!);
  sy = testS3Client(y.running.s3Url!);
});

afterAll(async () => {
  sx?.destroy();
  sy?.destroy();
  await y?.stop();
  await x?.stop();
  await drop?.();
  if (blobsDir) fs.rmSync(blobsDir, { recursive: true, force: true });
});

const preflight = (node: TestServer) =>
  fetch(`${node.running.s3Url}/pg-cors/a.txt`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' } });

it('keeps CORS rules with the bucket in PostgreSQL, seen by every node', async () => {
  await sx.send(new CreateBucketCommand({ Bucket: 'pg-cors' }));
  expect((await preflight(y)).status).toBe(403);
  await sx.send(new PutBucketCorsCommand({
    Bucket: 'pg-cors',
    CORSConfiguration: { CORSRules: [{ ID: 'app', AllowedOrigins: ['https://*.example.com'], AllowedMethods: ['GET'], MaxAgeSeconds: 30 }] },
  }));
  const got = await sy.send(new GetBucketCorsCommand({ Bucket: 'pg-cors' }));
  expect(got.CORSRules).toEqual([{ ID: 'app', AllowedOrigins: ['https://*.example.com'], AllowedMethods: ['GET'], MaxAgeSeconds: 30 }]);
  const allowed = await preflight(y);
  expect(allowed.status).toBe(200);
  expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  expect(allowed.headers.get('access-control-max-age')).toBe('30');
  await sy.send(new DeleteBucketCorsCommand({ Bucket: 'pg-cors' }));
  expect(await s3Failure(sx.send(new GetBucketCorsCommand({ Bucket: 'pg-cors' })))).toEqual({ name: 'NoSuchCORSConfiguration', status: 404 });
  expect((await preflight(x)).status).toBe(403);
});
