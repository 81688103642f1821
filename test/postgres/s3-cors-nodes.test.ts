/**
 * Bucket CORS on PostgreSQL-backed bucket metadata: two Stratus nodes share a database, rules put over S3 on
 * one node answer preflights and decorate answers on the other, and deleting them on one stops both.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CreateBucketCommand, DeleteBucketCorsCommand, GetBucketCorsCommand, PutBucketCorsCommand, type S3Client } from '@aws-sdk/client-s3';
import type { TestServer } from '../helpers/server.js';
import { startS3NodePair, type S3NodePair } from '../helpers/s3-node-pair.js';
import { s3Failure } from '../helpers/s3-sdk.js';

let pair: S3NodePair;
let x: TestServer;
let y: TestServer;
let sx: S3Client;
let sy: S3Client;

beforeAll(async () => {
  pair = await startS3NodePair('s3cors');
  ({ x, y, sx, sy } = pair);
});

afterAll(async () => {
  await pair?.stop();
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
