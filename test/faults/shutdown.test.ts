/**
 * Stopping `stratus serve` under load: on SIGTERM (and SIGINT) it stops accepting, lets requests in flight
 * finish (a request whose body is still arriving when the signal comes is answered), closes the stores and
 * exits 0; a request that never finishes is cut after `--shutdown-timeout`. Every acknowledged write is there
 * after a restart on the same data folder. Needs `npm run build`.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { spawnStratus, type SpawnedStratus } from './spawn.js';
import { missingObjects, missingRecords, objectWriters, recordWriters, summary, waitUntil } from './load.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { CreateBucketCommand } from '@aws-sdk/client-s3';

const dirs: string[] = [];
const nodes: SpawnedStratus[] = [];

afterEach(async () => {
  for (const n of nodes.splice(0)) if (n.child.exitCode === null) { n.child.kill('SIGKILL'); await n.exited; }
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string, flags: Record<string, string> = {}): Promise<SpawnedStratus> {
  const node = await spawnStratus(dataDir, flags);
  nodes.push(node);
  return node;
}

async function newZone(node: SpawnedStratus, name: string): Promise<string> {
  const headers = { 'x-auth-email': node.email, 'x-auth-key': node.key, 'content-type': 'application/json' };
  const account = ((await (await fetch(`${node.apiBase}/accounts`, { headers })).json()) as any).result[0].id;
  return ((await (await fetch(`${node.apiBase}/zones`, { method: 'POST', headers, body: JSON.stringify({ name, account: { id: account } }) })).json()) as any).result.id;
}

/**
 * Starts a record create whose body waits for `finish()`. `started` resolves when the server has read the
 * headers (its `100 Continue`): from then on the request is in flight.
 */
function slowCreate(node: SpawnedStratus, zoneId: string, name: string): { started: Promise<void>; finish(): void; response: Promise<{ status: number; body: string }> } {
  const body = JSON.stringify({ type: 'TXT', name, content: '"slow"', ttl: 120 });
  const url = new URL(`${node.apiBase}/zones/${zoneId}/dns_records`);
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'x-auth-email': node.email, 'x-auth-key': node.key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' } });
  const started = new Promise<void>((resolve) => req.on('continue', () => resolve()));
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { started, finish: () => req.end(body), response };
}

it('SIGTERM under load: finishes the requests in flight, exits 0, and every acknowledged write is durable', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-faults-stop-'));
  dirs.push(dataDir);
  const node = await start(dataDir);
  const zoneId = await newZone(node, 'faults-stop.example');
  const s3 = testS3Client(node.s3Url);
  await s3.send(new CreateBucketCommand({ Bucket: 'stop' }));
  const records = recordWriters(node, zoneId, 8, 'term');
  const objects = objectWriters(s3, 'stop', 2, 'term', 100 * 1024);
  await records.waitForSuccesses(100);
  await objects.waitForSuccesses(5);
  const slow = slowCreate(node, zoneId, 'slow-one');
  await slow.started;
  node.child.kill('SIGTERM');
  await waitUntil(() => /SIGTERM, stopping/.test(node.output()), 10_000, 'the stop to begin');
  slow.finish();
  const answered = await slow.response;
  expect(answered.status, answered.body).toBe(200);
  const code = await node.exited;
  const recordReport = await records.stop();
  const objectReport = await objects.stop();
  s3.destroy();
  expect(code, node.output()).toBe(0);
  expect(recordReport.malformed, summary(recordReport)).toEqual([]);
  const slowId = (JSON.parse(answered.body) as { result: { id: string } }).result.id;
  const again = await start(dataDir);
  expect(await missingRecords(again, zoneId, new Map([...recordReport.acked, [slowId, 'slow-one']]))).toEqual([]);
  const s3Again = testS3Client(again.s3Url);
  expect(await missingObjects(s3Again, 'stop', objectReport.acked)).toEqual([]);
  s3Again.destroy();
  again.child.kill('SIGINT');
  expect(await again.exited).toBe(0);
}, 180_000);

it('SIGINT with a request that never finishes: cut before --shutdown-timeout ends (the stores keep half of it to close), exit 0', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-faults-stop-'));
  dirs.push(dataDir);
  const node = await start(dataDir, { 'shutdown-timeout': '4' });
  const zoneId = await newZone(node, 'faults-stuck.example');
  const stuck = slowCreate(node, zoneId, 'never-finished');
  stuck.response.catch(() => undefined);
  await stuck.started;
  const records = recordWriters(node, zoneId, 4, 'int');
  await records.waitForSuccesses(20);
  node.child.kill('SIGINT');
  expect(await node.exited, node.output()).toBe(0);
  const report = await records.stop();
  await expect(stuck.response).rejects.toThrow();
  const again = await start(dataDir);
  expect(await missingRecords(again, zoneId, report.acked)).toEqual([]);
  again.child.kill('SIGTERM');
  expect(await again.exited).toBe(0);
}, 180_000);
