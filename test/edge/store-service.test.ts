/**
 * The store service on the wire (workerd's bucket protocol, as workerd sends it): a put whose client goes away
 * mid-body never commits, small and large values alike; a complete put and head round-trip.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreService, type StoreService } from '../../src/runtime/store-service/server.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openBucketStore, type BucketStore } from '../../src/store/index.js';
import { eventually } from './harness.js';

const SECRET = 'test-secret-of-this-process';
// Each request names its binding with a date of its own, so the service resolves its bucket anew (it reuses a
// binding's bucket for a second): `received` then counts the requests that reached the bucket.
let requests = 0;
const binding = () => JSON.stringify({ accountId: 'acct', bucket: 'wire', compatibilityDate: `2025-01-${String(++requests).padStart(2, '0')}` });

describe('store service: the bucket protocol on the wire', () => {
  let dataDir: string;
  let store: BucketStore;
  let service: StoreService;
  let received = 0;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-store-service-'));
    store = await openBucketStore({ dataDir });
    service = await startStoreService({ secret: SECRET, logger: silentLogger(), bucketFor: (_a, name, o) => { received++; return store.bucket(name, o); } });
  });
  afterAll(async () => {
    await service?.close();
    await store?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Sends a protocol PUT of `key`, writing only `sent` of `size` value bytes when `sent < size`, then closing. */
  const put = (key: string, size: number, sent = size) => new Promise<string>((resolve, reject) => {
    const [host, port] = service.address.split(':');
    const meta = Buffer.from(JSON.stringify({ version: 1, method: 'put', object: key }));
    const socket = net.connect(Number(port), host!, () => {
      socket.write(`PUT / HTTP/1.1\r\nHost: fake-host\r\nx-stratus-secret: ${SECRET}\r\nx-stratus-binding: ${binding()}\r\ncf-r2-metadata-size: ${meta.length}\r\ncontent-length: ${meta.length + size}\r\n\r\n`);
      socket.write(meta);
      socket.write(Buffer.alloc(sent, 1));
      if (sent < size) setTimeout(() => { socket.destroy(); resolve('aborted'); }, 100);
    });
    let answer = '';
    socket.on('data', (d) => { answer += d; if (answer.includes('"etag"')) { socket.end(); resolve(answer); } });
    socket.on('error', reject);
  });

  it('stores a complete put', async () => {
    expect(await put('whole', 1000)).toMatch(/^HTTP\/1\.1 200/);
    expect((await store.bucket('wire').head('whole'))?.size).toBe(1000);
  });

  it('never commits a small put whose client goes away mid-body', async () => {
    const before = received;
    await put('torn-small', 1000, 400);
    await eventually(async () => expect(received).toBeGreaterThan(before));
    expect(await store.bucket('wire').head('torn-small')).toBeNull();
  });

  it('never commits a large (streamed) put whose client goes away mid-body', async () => {
    const before = received;
    await put('torn-large', 1_000_000, 300_000);
    await eventually(async () => expect(received).toBeGreaterThan(before));
    // Give the store time to finish whatever it would do with the stream, then check nothing was stored.
    await eventually(async () => expect(await store.bucket('wire').head('torn-large')).toBeNull());
    expect((await store.bucket('wire').list()).objects.map((o) => o.key)).toEqual(['whole']);
  });
});
