/**
 * The embedded store (SQLite files and blob files) on a file system that fills up: a tmpfs of 8 MiB that the
 * test mounts (root only; skipped with a message where mounting is not permitted) and fills with a filler
 * file. With writers running, writes are refused with a clear error (v4 507 + 1281, S3 507
 * InsufficientStorage, binding `put: … (10043)`), reads and DNS keep answering, and once the filler is
 * removed writes succeed again without a restart. Afterwards both SQLite files pass `PRAGMA integrity_check`
 * and every acknowledged write is there.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { dig } from '../dns-server/dig.js';
import { openBucketStore } from '../../src/store/open.js';
import { missingObjects, missingRecords, objectWriters, recordWriters, summary } from './load.js';

const ZONE = 'faults-disk.example';
let mountDir: string | undefined;
let mountError = '';
let server: TestServer | undefined;
let s3: S3Client;
let zoneId: string;
const filler = () => path.join(mountDir!, 'filler');

/** Writes zeros into the filler file until the file system is full. */
function fillDisk(): void {
  const fd = fs.openSync(filler(), 'a');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-faults-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir], { stdio: 'pipe' });
    mountDir = dir;
  } catch (err) {
    mountError = String((err as { stderr?: Buffer }).stderr ?? err);
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  }
  server = await startTestServer({ dataDir: path.join(mountDir, 'data'), flags: { 'dns-workers': '0' } });
  const account = (await server.sdk().accounts.list()).result[0]!.id;
  zoneId = (await server.sdk().zones.create({ account: { id: account }, name: ZONE, type: 'full' })).id;
  await server.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: `www.${ZONE}`, content: '192.0.2.82', ttl: 300 });
  s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'disk' }));
  await s3.send(new PutObjectCommand({ Bucket: 'disk', Key: 'seed-small', Body: 'small' }));
  await s3.send(new PutObjectCommand({ Bucket: 'disk', Key: 'seed-big', Body: 'B'.repeat(200 * 1024) }));
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await server?.stop();
  if (mountDir) {
    execFileSync('umount', [mountDir]);
    fs.rmSync(mountDir, { recursive: true, force: true });
  }
});

describe('disk full on the embedded store', () => {
  it('refuses writes with 507 while the disk is full, keeps serving reads and DNS, and writes again once space is freed', async (ctx) => {
    if (!mountDir) {
      console.warn(`disk-full test skipped: mounting a tmpfs is not permitted here (${mountError.trim()})`);
      ctx.skip();
    }
    const records = recordWriters(server!, zoneId, 3, 'disk');
    const objects = objectWriters(s3, 'disk', 2, 'disk', 20 * 1024);
    await records.waitForSuccesses(10);
    await objects.waitForSuccesses(5);
    fillDisk();
    await records.waitForStatus(507);
    await objects.waitForStatus(507);
    // Every kind of write is refused the same way; reads and DNS keep answering.
    expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket: 'disk', Key: 'big-while-full', Body: 'x'.repeat(300 * 1024) })))).toEqual({ name: 'InsufficientStorage', status: 507 });
    const store = await openBucketStore({ dataDir: server!.dataDir, sweepOnOpen: false, maintenanceIntervalMs: 0 });
    try {
      await expect(store.bucket('disk').put('binding-while-full', 'y'.repeat(300 * 1024))).rejects.toThrow(/^put: Insufficient storage: .* \(10043\)$/);
    } finally {
      await store.close();
    }
    const list = await fetch(`${server!.apiBase}/zones/${zoneId}/dns_records?type=A`, { headers: { 'x-auth-email': server!.email, 'x-auth-key': server!.key } });
    expect(list.status).toBe(200);
    expect(await (await s3.send(new GetObjectCommand({ Bucket: 'disk', Key: 'seed-big' }))).Body!.transformToString()).toHaveLength(200 * 1024);
    expect((await dig(server!.dnsPort!, `www.${ZONE}`, 'A')).answer.join('\n')).toContain('192.0.2.82');
    fs.rmSync(filler());
    const freedAt = Date.now();
    await records.waitForSuccesses(10, 30_000);
    await objects.waitForSuccesses(5, 30_000);
    const recordReport = await records.stop();
    const objectReport = await objects.stop();
    expect(recordReport.successes.find((t) => t >= freedAt)! - freedAt, summary(recordReport)).toBeLessThan(5_000);
    expect(recordReport.malformed, summary(recordReport)).toEqual([]);
    for (const key of recordReport.byStatus.keys()) expect(['200', '507:1281'], summary(recordReport)).toContain(key);
    for (const key of objectReport.byStatus.keys()) expect(['200', '507:InsufficientStorage'], summary(objectReport)).toContain(key);
    expect(await missingRecords(server!, zoneId, recordReport.acked)).toEqual([]);
    expect(await missingObjects(s3, 'disk', objectReport.acked)).toEqual([]);
    const dataDir = server!.dataDir;
    await server!.stop();
    server = undefined;
    for (const file of ['stratus.sqlite', 'buckets.sqlite']) {
      const db = new SQLite(path.join(dataDir, file), { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true }), file).toBe('ok');
      } finally {
        db.close();
      }
    }
  }, 120_000);
});
