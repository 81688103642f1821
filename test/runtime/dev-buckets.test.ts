/**
 * `stratus dev` end to end (workerd, its own bucket binding over Stratus's store) with a real script using
 * env.BUCKET over HTTP on port 0: put/get/list, ranges and conditionals through request headers, a streamed
 * body larger than memory chunks, a throwing script and an infinite loop (the runtime is replaced and the
 * bucket keeps working), and persistence across a restart on the same folder. A fresh folder gets its admin
 * (as a first `stratus serve` makes it) and the bindings name that account's buckets.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, validateScriptConfig, type RunningDevServer } from '../../src/runtime/index.js';
import { openBucketStore } from '../../src/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { eventually } from '../edge/harness.js';

const SCRIPT = path.join(import.meta.dirname, 'fixtures', 'bucket-app.mjs');

describe('stratus dev with a bucket binding', () => {
  let dataDir: string;
  let dev: RunningDevServer;
  const start = async () => startDevServer({
    configFile: writeConfig(),
    http: { host: '127.0.0.1', port: 0 }, dataDir, logger: silentLogger(), timeoutMs: 3000,
  });
  const writeConfig = () => {
    const file = path.join(dataDir, 'wrangler.toml');
    // A real project's file: deploy-only keys, production's r2_buckets, and a key Stratus does not know.
    fs.writeFileSync(file, [
      'name = "bucket-app"', `main = ${JSON.stringify(SCRIPT)}`, 'compatibility_date = "2025-01-01"', 'workers_dev = true',
      'routes = [{ pattern = "assets.example.com/*", zone_name = "example.com" }]',
      'frobnicate = true', '', '[[r2_buckets]]', 'binding = "BUCKET"', 'bucket_name = "site-assets"', 'preview_bucket_name = "site-assets-dev"', '',
    ].join('\n'));
    return file;
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-devb-'));
    dev = await start();
  });
  afterAll(async () => {
    await dev?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads a real wrangler.toml: deploy-only keys accepted, an unknown key is a warning naming it', () => {
    expect(dev.warnings).toEqual(['wrangler.toml: frobnicate is not a key Stratus knows; ignored']);
  });

  it('puts, gets and lists objects through the script', async () => {
    const put = await fetch(`${dev.url}/obj/docs/readme.txt`, { method: 'PUT', body: 'hello bucket', headers: { 'content-type': 'text/plain' } });
    expect(put.status).toBe(201);
    expect(await put.json()).toEqual({ key: 'docs/readme.txt', size: 12, etag: crypto.createHash('md5').update('hello bucket').digest('hex'), storageClass: 'Standard' });
    await fetch(`${dev.url}/obj/docs/a/b.txt`, { method: 'PUT', body: 'b' });
    await fetch(`${dev.url}/obj/top.txt`, { method: 'PUT', body: 't' });

    const get = await fetch(`${dev.url}/obj/docs/readme.txt`);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('text/plain');
    expect(get.headers.get('x-meta')).toBe('script');
    expect(await get.text()).toBe('hello bucket');

    expect(await (await fetch(`${dev.url}/list`)).json()).toEqual({ keys: ['docs/a/b.txt', 'docs/readme.txt', 'top.txt'], prefixes: [], truncated: false, cursor: null });
    // The contract's delimitedPrefixes: no trailing delimiter.
    expect(await (await fetch(`${dev.url}/list?delimiter=/`)).json()).toMatchObject({ keys: ['top.txt'], prefixes: ['docs'] });
    expect((await fetch(`${dev.url}/obj/nope`)).status).toBe(404);
  });

  it('passes Range and conditional request headers to the binding', async () => {
    const ranged = await fetch(`${dev.url}/obj/docs/readme.txt`, { headers: { range: 'bytes=6-11' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 6-11/12');
    expect(await ranged.text()).toBe('bucket');
    const etag = `"${crypto.createHash('md5').update('hello bucket').digest('hex')}"`;
    expect((await fetch(`${dev.url}/obj/docs/readme.txt`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    // Create-only-if-absent through If-None-Match: *.
    expect((await fetch(`${dev.url}/obj/docs/readme.txt`, { method: 'PUT', body: 'x', headers: { 'if-none-match': '*' } })).status).toBe(412);
  });

  it('streams a 24 MiB request body into the bucket and back', async () => {
    const big = crypto.randomBytes(24 * 1024 * 1024);
    const put = await fetch(`${dev.url}/obj/big.bin`, { method: 'PUT', body: big });
    expect(put.status).toBe(201);
    expect((await put.json()).etag).toBe(crypto.createHash('md5').update(big).digest('hex'));
    const got = Buffer.from(await (await fetch(`${dev.url}/obj/big.bin`)).arrayBuffer());
    expect(got.length).toBe(big.length);
    expect(Buffer.compare(got, big)).toBe(0);
  });

  it('answers 1101 (500) to a throwing script, stops a stuck one, then keeps serving the bucket', async () => {
    const thrown = await fetch(`${dev.url}/throw`);
    expect(thrown.status).toBe(500);
    const page = await thrown.text();
    expect(page).toContain('1101');
    expect(page).toContain('TypeError: thrown after a bucket call');
    expect(await (await fetch(`${dev.url}/obj/top.txt`)).text()).toBe('t');
    const restarts = dev.runtime.restarts;
    // The runtime running the loop is replaced; the loop's own connection closes with it.
    const stuck = await fetch(`${dev.url}/loop`).then((r) => r.status, () => 'closed');
    expect(stuck).not.toBe(200);
    expect(dev.runtime.restarts).toBeGreaterThan(restarts);
    // A keep-alive connection to the replaced runtime may still be pooled by the client: retry on a reset.
    expect(await (await eventually(() => fetch(`${dev.url}/obj/top.txt`))).text()).toBe('t');
    expect((await fetch(`${dev.url}/obj/after-restart`, { method: 'PUT', body: 'still writable' })).status).toBe(201);
  });

  it('made the fresh folder\'s admin, whose account the bindings name', () => {
    const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as { email: string };
    expect(saved.email).toBe('admin@example.com');
    expect(dev.account).toMatchObject({ source: 'the admin\'s', generatedCredentialsFile: path.join(dataDir, 'credentials.json') });
    expect(dev.account.id).toMatch(/^[0-9a-f]{32}$/);
    expect(dev.account.adminId).toBe(dev.account.id);
  });

  it('keeps the buckets across a restart, and Node code sees the same bucket in the account', async () => {
    const account = dev.account.id;
    await dev.close();
    dev = await start();
    // The same admin: nothing is generated again.
    expect(dev.account).toEqual({ id: account, source: 'the admin\'s', adminId: account });
    expect(await (await fetch(`${dev.url}/obj/after-restart`)).text()).toBe('still writable');
    expect((await (await fetch(`${dev.url}/list`)).json()).keys).toContain('big.bin');
    const store = await openBucketStore({ dataDir });
    try {
      const o = await store.forAccount(account).bucket('site-assets').get('docs/readme.txt');
      expect(o && 'body' in o ? await o.text() : null).toBe('hello bucket');
      // The library's flat namespace is not an account's: no bucket `site-assets` there.
      expect(await store.bucket('site-assets').head('docs/readme.txt')).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('refuses an account_id the folder does not have, naming the file\'s key', async () => {
    const file = path.join(dataDir, 'other.toml');
    fs.writeFileSync(file, [`main = ${JSON.stringify(SCRIPT)}`, 'account_id = "0123456789abcdef0123456789abcdef"', ''].join('\n'));
    await expect(startDevServer({ configFile: file, http: { host: '127.0.0.1', port: 0 }, dataDir, logger: silentLogger() }))
      .rejects.toThrow(`other.toml's account_id 0123456789abcdef0123456789abcdef: no such account in this data folder (${dataDir}); the admin's is ${dev.account.id}`);
    fs.writeFileSync(file, [`main = ${JSON.stringify(SCRIPT)}`, 'account_id = "ABC"', ''].join('\n'));
    await expect(startDevServer({ configFile: file, http: { host: '127.0.0.1', port: 0 }, dataDir, logger: silentLogger() }))
      .rejects.toThrow('other.toml: account_id must be an account id (32 hex digits, lowercase), got "ABC"');
  });

  it('rejects a config with a bad binding before starting', () => {
    expect(() => validateScriptConfig({ store_buckets: [{ binding: 'my-bucket', bucket_name: 'site-assets' }] }, 'wrangler.toml', dataDir))
      .toThrow('wrangler.toml: store_buckets[0].binding must be a valid JavaScript identifier, got "my-bucket"');
  });
});

describe('stratus dev on a folder an older stratus dev wrote', () => {
  it('moves the buckets of no account into the admin\'s account at its first start, where the binding finds them', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-devlegacy-'));
    let dev: RunningDevServer | undefined;
    try {
      // What an older `stratus dev` left: a bucket of no account (the library's flat namespace).
      const old = await openBucketStore({ dataDir });
      await old.bucket('legacy').put('kept.txt', 'written before buckets belonged to accounts');
      await old.close();
      const file = path.join(dataDir, 'wrangler.toml');
      fs.writeFileSync(file, [`main = ${JSON.stringify(SCRIPT)}`, '[[r2_buckets]]', 'binding = "BUCKET"', 'bucket_name = "legacy"', ''].join('\n'));
      dev = await startDevServer({ configFile: file, http: { host: '127.0.0.1', port: 0 }, dataDir, logger: silentLogger() });
      expect(await (await fetch(`${dev.url}/obj/kept.txt`)).text()).toBe('written before buckets belonged to accounts');
      const store = await openBucketStore({ dataDir });
      try {
        expect((await store.forAccount(dev.account.id).listBuckets()).map((b) => b.name)).toEqual(['legacy']);
        expect(await store.listBuckets()).toEqual([expect.objectContaining({ name: `${dev.account.id}/legacy` })]);
      } finally {
        await store.close();
      }
    } finally {
      await dev?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
