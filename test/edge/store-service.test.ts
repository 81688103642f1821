/**
 * The store service on the wire (workerd's bucket protocol, as workerd sends it): a put whose client goes away
 * mid-body never commits, small and large values alike; a complete put and head round-trip; head and get answered
 * from the stored record carry exactly the JSON of the binding's value; a streamed read whose client goes away
 * releases its blob.
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
import { objectJson } from '../../src/runtime/store-service/encode.js';
import type { StoreObject } from '../../src/store/types.js';

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

  /** A protocol GET (head or get) of `key`, read to its end: status, the metadata JSON, and the body's bytes. */
  const read = (request: Record<string, unknown>) => new Promise<{ status: number; meta: unknown; body: Buffer }>((resolve, reject) => {
    const [host, port] = service.address.split(':');
    const socket = net.connect(Number(port), host!, () => {
      // workerd sends the request's JSON as raw UTF-8 bytes in the header.
      socket.write(Buffer.concat([
        Buffer.from(`GET / HTTP/1.1\r\nHost: fake-host\r\nx-stratus-secret: ${SECRET}\r\nx-stratus-binding: ${binding()}\r\ncf-r2-request: `),
        Buffer.from(JSON.stringify({ version: 1, ...request }), 'utf8'), Buffer.from('\r\n\r\n'),
      ]));
    });
    let got = Buffer.alloc(0);
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.subarray(0, end).toString('latin1');
      const length = Number(/content-length: (\d+)/.exec(head)![1]);
      if (got.length < end + 4 + length) return;
      socket.end();
      const metaSize = Number(/cf-r2-metadata-size: (\d+)/.exec(head)?.[1] ?? 0);
      const body = got.subarray(end + 4, end + 4 + length);
      resolve({ status: Number(head.slice(9, 12)), meta: metaSize ? JSON.parse(body.subarray(0, metaSize).toString('utf8')) : undefined, body: body.subarray(metaSize) });
    });
    socket.on('error', reject);
  });

  it('answers head and get from the stored record with the JSON of the binding\'s own value', async () => {
    const bucket = store.bucket('wire');
    const key = 'ключ ✓/värde';
    await bucket.put(key, 'hello, records', {
      httpMetadata: { contentType: 'text/plain', cacheControl: 'no-cache', cacheExpiry: new Date(1_900_000_000_000) },
      customMetadata: { b: '2', a: 'ü' }, sha256: await crypto.subtle.digest('SHA-256', new TextEncoder().encode('hello, records')),
      storageClass: 'InfrequentAccess',
    });
    const value = (o: StoreObject | null) => JSON.parse(JSON.stringify(objectJson(o!)));
    const head = await read({ method: 'head', object: key });
    expect(head.status).toBe(200);
    expect(head.meta).toEqual(value(await bucket.head(key)));
    expect((head.meta as { customFields: unknown }).customFields).toEqual([{ k: 'b', v: '2' }, { k: 'a', v: 'ü' }]);
    const got = await read({ method: 'get', object: key, range: { offset: 7, length: 7 } });
    expect(got.status).toBe(200);
    expect(got.meta).toEqual(value(await bucket.get(key, { range: { offset: 7, length: 7 } })));
    expect(got.body.toString()).toBe('records');
    const unmet = await read({ method: 'get', object: key, onlyIf: { etagMatches: [{ type: 'strong', value: 'not-its-etag' }] } });
    expect(unmet.status).toBe(412);
    expect(unmet.meta).toEqual(value(await bucket.get(key, { onlyIf: { etagMatches: 'not-its-etag' } })));
    expect((await read({ method: 'get', object: 'no such key' })).status).toBe(404);
  });

  it('releases the blob of a streamed read whose client goes away mid-answer', async () => {
    const blobsDir = path.join(dataDir, 'blobs');
    const openBlobs = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
      try { return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(blobsDir); } catch { return false; }
    }).length;
    await store.bucket('wire').put('big', new Uint8Array(8 * 1024 * 1024).fill(5));
    const before = openBlobs();
    // A file left open is closed by Node when its handle is collected, with this warning: released means before that.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    await new Promise<void>((resolve, reject) => {
      const [host, port] = service.address.split(':');
      const socket = net.connect(Number(port), host!, () => {
        socket.write(`GET / HTTP/1.1\r\nHost: fake-host\r\nx-stratus-secret: ${SECRET}\r\nx-stratus-binding: ${binding()}\r\ncf-r2-request: {"version":1,"method":"get","object":"big"}\r\n\r\n`);
      });
      socket.once('data', (d) => {
        expect(d.toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        socket.pause(); // the answer fills the socket's buffers, then the client goes away
        setImmediate(() => { socket.destroy(); resolve(); });
      });
      socket.on('error', reject);
    });
    await eventually(async () => expect(openBlobs()).toBe(before));
    process.off('warning', onWarning);
    expect(warnings.filter((w) => w.includes('garbage collection'))).toEqual([]);
    // The service still answers.
    expect((await read({ method: 'head', object: 'big' })).status).toBe(200);
  });
});
