/**
 * The dashboard's files on the v4 listener (no browser): the security headers on every file, caching (index.html
 * revalidated, hashed assets for a year), gzip, the first load's size budget (under 200 KB compressed), the v4
 * envelope still answering unknown paths, and `--dashboard off`. Needs dist/dashboard (`npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** GET with gzip accepted; the body as sent (compressed or not). */
async function getRaw(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  // undici's fetch decompresses transparently; a raw byte count needs node:http.
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'accept-encoding': 'gzip', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), bytes: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('dashboard files', () => {
  let on: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    on = await startTestServer();
    off = await startTestServer({ flags: { dashboard: 'off' } });
  });
  afterAll(async () => { await on?.stop(); await off?.stop(); });

  it('serves index.html and its hashed assets with a strict CSP, no framing, and the right caching', async () => {
    const index = await getRaw(`${on.url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-encoding')).toBe('gzip');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = gunzipSync(index.bytes).toString();
    expect(html).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|\bon\w+=/i); // no inline script, style or handler
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css'))).toBe(true);
    let total = index.bytes.byteLength;
    for (const response of [index, ...(await Promise.all(assets.map((a) => getRaw(`${on.url}${a}`))))]) {
      expect(response.status).toBe(200);
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      if (response !== index) {
        expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        total += response.bytes.byteLength;
      }
    }
    // The first load: index.html, the script and the stylesheet, as sent (gzip).
    expect(total).toBeLessThan(200 * 1024);
  });

  it('names the S3 listener in index.html and lets the page reach it on the host it was loaded from', async () => {
    const s3Port = new URL(on.running.s3Url!).port;
    const local = await getRaw(`${on.url}/`);
    expect(gunzipSync(local.bytes).toString()).toContain(`<meta name="stratus-s3-port" content="${s3Port}">`);
    expect(local.headers.get('content-security-policy')).toContain(`connect-src 'self' http://127.0.0.1:${s3Port};`);
    const named = await getRaw(`${on.url}/`, { host: 'dash.example:8787' });
    expect(named.headers.get('content-security-policy')).toContain(`connect-src 'self' http://dash.example:${s3Port};`);
    // A Host that is no host name: no S3 origin at all.
    const odd = await getRaw(`${on.url}/`, { host: 'a b' });
    expect(odd.status === 400 || !/connect-src 'self' /.test(odd.headers.get('content-security-policy') ?? '')).toBe(true);
  });

  it('leaves the v4 API as it was: unknown paths get the envelope, the API answers', async () => {
    const res = await fetch(`${on.url}/assets/nothing.js`);
    expect(res.status).toBe(404);
    const other = await fetch(`${on.url}/some/path`);
    expect(other.status).toBe(404);
    expect((await other.json()).errors[0].code).toBe(7000);
    const user = await fetch(`${on.apiBase}/user`, { headers: { 'x-auth-email': on.email, 'x-auth-key': on.key } });
    expect((await user.json()).success).toBe(true);
  });

  it('--dashboard off: / is the API 404 envelope', async () => {
    const res = await fetch(`${off.url}/`);
    expect(res.status).toBe(404);
    expect((await res.json()).errors[0].code).toBe(7000);
    expect(res.headers.get('content-security-policy')).toBeNull();
  });
});
