/**
 * `stratus serve` with the edge listener on: without a catalog wired every hostname gets the 1001 page; the
 * store service behind the bucket binding refuses requests without the per-process secret (and in the edge
 * runtime listens on a Unix socket in a folder only Stratus's own user can open); bad edge flags
 * are clear errors; the subrequest and front flags reach the runtime.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { startEdge, type RunningEdge } from '../../src/runtime/index.js';
import { startStoreService, type StoreService } from '../../src/runtime/store-service/server.js';
import { silentLogger } from '../../src/shared/logger.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { edgeRequest } from './request.js';
import { MemoryCatalog } from './memory-catalog.js';

describe('stratus serve --edge', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ flags: { edge: '127.0.0.1:0' } });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('listens and answers an unknown hostname with the 1001 page (no catalog wired)', async () => {
    expect(server.running.edgeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await edgeRequest(server.running.edgeUrl!, 'www.example.com');
    expect(res.status).toBe(530);
    expect(res.body).toContain('1001');
    expect(res.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-STR$/);
  });

  it('validates the edge flags', () => {
    expect(loadConfig({ edge: 'off' }).edge).toBeUndefined();
    expect(loadConfig({}).edge).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(loadConfig({ 'script-outbound': '10.0.0.0/8, 192.0.2.7,2001:db8::/32' }).scriptOutbound).toEqual(['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32']);
    expect(() => loadConfig({ 'script-outbound': '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => loadConfig({ 'script-outbound': 'example.com' })).toThrow('--script-outbound must be a list of CIDRs');
    expect(loadConfig({}).originAllow).toEqual([]);
    expect(loadConfig({ 'origin-allow': '127.0.0.0/8, ::1' }).originAllow).toEqual(['127.0.0.0/8', '::1/128']);
    expect(() => loadConfig({ 'origin-allow': 'localhost' })).toThrow('--origin-allow must be a list of CIDRs');
    expect(() => loadConfig({ 'origin-port': '0' })).toThrow('--origin-port must be a whole number from 1 to 65535');
    expect(() => loadConfig({ edge: 'nope' })).toThrow('--edge must be HOST:PORT');
    expect(loadConfig({})).toMatchObject({ scriptSubrequests: 50, scriptBucketSubrequests: 1000, edgeFront: 'auto' });
    expect(loadConfig({ 'script-subrequests': '0', 'script-bucket-subrequests': '10000', 'edge-front': 'off' })).toMatchObject({ scriptSubrequests: 0, scriptBucketSubrequests: 10000, edgeFront: 'off' });
    expect(() => loadConfig({ 'script-subrequests': '-1' })).toThrow('--script-subrequests must be a whole number from 0 to 10000000');
    expect(() => loadConfig({ 'edge-front': 'yes' })).toThrow('--edge-front must be auto, nginx, workerd or off, got "yes"');
  });
});

describe('stratus serve --edge with --script-subrequests and --edge-front off', () => {
  let server: TestServer;
  const catalog = new MemoryCatalog();

  beforeAll(async () => {
    server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'script-subrequests': '1', 'edge-front': 'off' }, edgeCatalog: catalog });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('passes the limit to the runtime: the second fetch() of a request throws "Too many subrequests."', async () => {
    catalog.deploy('two.example.com', `export default { async fetch() {
      const out = [];
      for (let i = 0; i < 2; i++) { try { await fetch('http://127.0.0.1:1/'); out.push('ok'); } catch (e) { out.push(e.message); } }
      return Response.json(out);
    } }`);
    const res = await edgeRequest(server.running.edgeUrl!, 'two.example.com');
    expect(res.status).toBe(200);
    const out = JSON.parse(res.body) as string[];
    expect(out[0]).not.toBe('Too many subrequests.'); // the first is counted, then refused by the network rules (loopback)
    expect(out[1]).toBe('Too many subrequests.');
  });
});

describe('store service', () => {
  let service: StoreService;
  let calls = 0;

  beforeAll(async () => {
    service = await startStoreService({ secret: 'right-secret', logger: silentLogger(), bucketFor: () => { calls++; throw new Error('must not be reached'); } });
  });
  afterAll(async () => {
    await service?.close();
  });

  const ask = (headers: Record<string, string>) => new Promise<number>((resolve, reject) => {
    const [host, port] = service.address.split(':');
    http.get({ host, port: Number(port), path: '/', headers: { 'cf-r2-request': '{"version":1,"method":"head","object":"k"}', 'x-stratus-binding': '{"accountId":"a","bucket":"b"}', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).on('error', reject);
  });

  it('refuses requests without the per-process secret or with a wrong one, before touching any bucket', async () => {
    expect(await ask({})).toBe(403);
    expect(await ask({ 'x-stratus-secret': 'wrong-secret' })).toBe(403);
    expect(await ask({ 'x-stratus-secret': 'right-secre' })).toBe(403);
    expect(calls).toBe(0);
  });
});

describe("the edge runtime's store service", () => {
  let edge: RunningEdge;
  let calls = 0;

  beforeAll(async () => {
    edge = await startEdge({ listen: { host: '127.0.0.1', port: 0 }, logger: silentLogger(), bucketFor: () => { calls++; throw new Error('must not be reached'); } });
  }, 60_000);
  afterAll(async () => {
    await edge?.close();
  });

  it('listens on a Unix socket in a folder only its own user can open, and still requires the secret there', async () => {
    const address = edge.runtime.storeAddress;
    expect(address.startsWith('unix:')).toBe(true);
    const socketPath = address.slice('unix:'.length);
    expect(fs.statSync(socketPath).isSocket()).toBe(true);
    expect(fs.statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
    const status = await new Promise<number>((resolve, reject) => {
      http.get({ socketPath, path: '/', headers: { 'cf-r2-request': '{"version":1,"method":"head","object":"k"}', 'x-stratus-binding': '{"accountId":"a","bucket":"b"}', 'x-stratus-secret': 'guessed' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      }).on('error', reject);
    });
    expect(status).toBe(403);
    expect(calls).toBe(0);
  });
});
