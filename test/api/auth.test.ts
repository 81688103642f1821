import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api } from '../helpers/api.js';
import { CREDENTIALS_FILE } from '../../src/shared/data-dir.js';

describe('authentication', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.stop(); });

  it('accepts the configured e-mail and key (e-mail case-insensitively)', async () => {
    const res = await api(server, 'GET', '/accounts', undefined, { 'x-auth-email': server.email.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('missing credentials: 400 9106', async () => {
    for (const headers of [{ 'x-auth-email': undefined, 'x-auth-key': undefined }, { 'x-auth-key': undefined }, { 'x-auth-email': undefined }]) {
      const res = await api(server, 'GET', '/zones', undefined, headers);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toEqual({ code: 9106, message: 'Missing X-Auth-Key, X-Auth-Email or Authorization headers' });
      expect(res.body.result).toBeNull();
    }
  });

  it('malformed credentials: 400 6003 with 6102/6103 in the chain', async () => {
    const res = await api(server, 'GET', '/zones', undefined, { 'x-auth-email': 'not-an-email', 'x-auth-key': 'bad key with spaces' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ code: 6003, message: 'Invalid request headers', error_chain: [
      { code: 6102, message: 'Invalid format for X-Auth-Email header' },
      { code: 6103, message: 'Invalid format for X-Auth-Key header' },
    ] }]);
  });

  it('unknown pair: 403 9103, for a wrong key and for an unknown e-mail', async () => {
    for (const headers of [{ 'x-auth-key': 'f'.repeat(37) }, { 'x-auth-email': 'nobody@example.org' }]) {
      const res = await api(server, 'GET', '/zones', undefined, headers);
      expect(res.status).toBe(403);
      expect(res.body.errors[0]).toEqual({ code: 9103, message: 'Unknown X-Auth-Key or X-Auth-Email' });
    }
  });

  it('an unknown bearer token: 401 10000; a malformed Authorization: 6003/6111', async () => {
    const res = await api(server, 'GET', '/zones', undefined, { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: 'Bearer abcdef' });
    expect(res.status).toBe(401);
    expect(res.body.errors).toEqual([{ code: 10000, message: 'Authentication error' }]);
    const bad = await api(server, 'GET', '/zones', undefined, { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: 'Basic x' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]!.error_chain).toEqual([{ code: 6111, message: 'Invalid format for Authorization header' }]);
  });

  it('the SDK sees its error classes', async () => {
    const wrong = new Cloudflare({ apiEmail: server.email, apiKey: 'f'.repeat(37), baseURL: server.apiBase, maxRetries: 0 });
    await expect(wrong.zones.list()).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError);
    const token = new Cloudflare({ apiToken: 'sometoken', baseURL: server.apiBase, maxRetries: 0 });
    await expect(token.zones.list()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
  });

  it('the key is stored hashed, never in clear', async () => {
    const db = fs.readFileSync(path.join(server.dataDir, 'stratus.sqlite'));
    expect(db.includes(Buffer.from(server.key))).toBe(false);
  });
});

describe('credential bootstrap', () => {
  it('without configured credentials the first start generates a 37-hex key in a 0600 file; later starts keep it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-boot-'));
    try {
      const first = await startTestServer({ dataDir, config: { authEmail: undefined, authKey: undefined } });
      const generated = first.running.generatedCredentials;
      expect(generated?.key).toMatch(/^[0-9a-f]{37}$/);
      const file = path.join(dataDir, CREDENTIALS_FILE);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(generated?.apiToken).toMatch(/^[A-Za-z0-9_-]{40}$/);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ email: generated!.email, key: generated!.key, api_token: generated!.apiToken });
      const ok = await api({ ...first, email: generated!.email, key: generated!.key }, 'GET', '/accounts');
      expect(ok.status).toBe(200);
      // The generated token can do everything the key can, including creating a zone.
      const bearer = { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${generated!.apiToken}` };
      const account = ok.body.result[0].id as string;
      const zone = await api(first, 'POST', '/zones', { name: 'boot-token.example', account: { id: account } }, bearer);
      expect(zone.status).toBe(200);
      expect((await api(first, 'POST', `/zones/${zone.body.result.id}/dns_records`, { type: 'A', name: 'www', content: '192.0.2.1' }, bearer)).status).toBe(200);
      await first.stop();

      const second = await startTestServer({ dataDir, config: { authEmail: undefined, authKey: undefined } });
      expect(second.running.generatedCredentials).toBeUndefined();
      const still = await api({ ...second, email: generated!.email, key: generated!.key }, 'GET', '/accounts');
      expect(still.status).toBe(200);
      await second.stop();

      // Configured credentials update the admin's key at the next start.
      const third = await startTestServer({ dataDir, email: generated!.email, key: 'new-key-123' });
      expect((await api(third, 'GET', '/accounts')).status).toBe(200);
      expect((await api({ ...third, key: generated!.key }, 'GET', '/accounts')).status).toBe(403);
      await third.stop();

      // A configured token value becomes a full-access token of the admin.
      const fourth = await startTestServer({ dataDir, email: generated!.email, key: 'new-key-123', config: { apiToken: 'configured-token-0123456789' } });
      const listed = await api(fourth, 'GET', '/zones', undefined, { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: 'Bearer configured-token-0123456789' });
      expect(listed.body.result.map((z: { name: string }) => z.name)).toEqual(['boot-token.example']);
      await fourth.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
