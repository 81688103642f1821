/**
 * Control bytes (NUL, CR, LF, other C0, DEL) in credential headers, on the v4 API and the S3 API, over a raw
 * socket: always a 400/403 in the interface's format (v4 envelope, S3 XML), never a 500, and the value
 * (a key, a token, a secret) in neither the answer nor any log line of the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { rawHttp } from '../helpers/raw-http.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { signedHeaders } from '../helpers/s3-sign.js';

const SECRET = 'S3CR3Tvalue0123456789abcdefTOPSECRET';
/** Control bytes to put inside a header value (a bare CR or LF breaks the framing: Node's parser refuses it). */
const BYTES = ['\u0000', '\u0001', '\u0008', '\u000b', '\u001f', '\u007f', '\r', '\n'];

describe('control bytes in credential headers', () => {
  let server: TestServer;
  const { logger, lines } = captureLogger('trace');
  beforeAll(async () => { server = await startTestServer({ logger }); });
  afterAll(async () => { await server.stop(); });

  const head = (target: string, headers: [string, string][]) =>
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}Connection: close\r\n\r\n`;

  it('v4: 400 6003 in the envelope for every byte in X-Auth-Email, X-Auth-Key and Authorization', async () => {
    const cases: [string, [string, string][]][] = [];
    for (const b of BYTES) {
      cases.push(['x-auth-key', [['X-Auth-Email', server.email], ['X-Auth-Key', `${SECRET}${b}x`]]]);
      cases.push(['x-auth-email', [['X-Auth-Email', `a${b}${SECRET}@example.com`], ['X-Auth-Key', server.key]]]);
      cases.push(['authorization', [['Authorization', `Bearer ${SECRET}${b}x`]]]);
    }
    for (const [header, headers] of cases) {
      const res = await rawHttp(server.running.httpPort, head('/client/v4/zones', headers));
      const label = `${header} ${JSON.stringify(headers)}`;
      expect(res.status, label).toBe(400);
      expect(res.headers['content-type'], label).toMatch(/^application\/json/);
      const body = JSON.parse(res.body) as { success: boolean; errors: { code: number; error_chain?: { code: number }[] }[] };
      expect(body.success, label).toBe(false);
      expect(body.errors[0]!.code, label).toBe(6003);
      expect(res.body).not.toContain(SECRET);
    }
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(lines.filter((l) => l.includes('"level":50'))).toEqual([]);
  });

  it('v4: a NUL names the header in error_chain like any malformed credential', async () => {
    const key = await rawHttp(server.running.httpPort, head('/client/v4/zones', [['X-Auth-Email', server.email], ['X-Auth-Key', `${SECRET}\u0000`]]));
    expect(JSON.parse(key.body).errors).toEqual([{ code: 6003, message: 'Invalid request headers', error_chain: [{ code: 6103, message: 'Invalid format for X-Auth-Key header' }] }]);
    const bearer = await rawHttp(server.running.httpPort, head('/client/v4/zones', [['Authorization', `Bearer ${SECRET}\u0000`]]));
    expect(JSON.parse(bearer.body).errors).toEqual([{ code: 6003, message: 'Invalid request headers', error_chain: [{ code: 6111, message: 'Invalid format for Authorization header' }] }]);
  });

  it('S3: 400/403 as an S3 error document for every byte in Authorization, x-amz-* and SSE-C headers', async () => {
    const base = new URL(server.running.s3Url!);
    const signed = await signedHeaders('GET', base, '/');
    const port = Number(base.port);
    for (const b of BYTES) {
      const variants: [string, string][][] = [
        [['Authorization', `${signed.authorization!}${b}${SECRET}`], ['x-amz-date', signed['x-amz-date']!], ['x-amz-content-sha256', signed['x-amz-content-sha256']!]],
        [['Authorization', `AWS4-HMAC-SHA256 Credential=${SECRET}${b}/20250101/auto/s3/aws4_request, SignedHeaders=host, Signature=00`]],
        [['Authorization', signed.authorization!], ['x-amz-date', `${signed['x-amz-date']!}${b}${SECRET}`], ['x-amz-content-sha256', signed['x-amz-content-sha256']!]],
        [['Authorization', signed.authorization!], ['x-amz-date', signed['x-amz-date']!], ['x-amz-content-sha256', signed['x-amz-content-sha256']!],
          ['x-amz-server-side-encryption-customer-key', `${SECRET}${b}`]],
      ];
      for (const headers of variants) {
        const res = await rawHttp(port, head('/', headers));
        const label = JSON.stringify(headers);
        expect([400, 403], label).toContain(res.status);
        expect(res.headers['content-type'], label).toBe('application/xml');
        expect(res.body, label).toMatch(/<Error><Code>\w+<\/Code>/);
        expect(res.body, label).not.toContain(SECRET);
      }
    }
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(lines.filter((l) => l.includes('"level":50'))).toEqual([]);
  });

  it('S3: control bytes in presigned credential query parameters are refused without echoing them', async () => {
    const base = new URL(server.running.s3Url!);
    const now = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    for (const b of ['%00', '%01', '%0D', '%0A', '%7F']) {
      for (const q of [
        `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${SECRET}${b}%2F${now.slice(0, 8)}%2Fauto%2Fs3%2Faws4_request&X-Amz-Date=${now}&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=00`,
        `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${SECRET}${b}%2F20250101%2Fauto%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=00`,
        `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=stratustestaccesskey0000000000aa%2F20250101%2Fauto%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=${SECRET}${b}`,
        `X-Amz-Algorithm=AWS4-HMAC-SHA256${b}&X-Amz-Credential=${SECRET}%2F20250101%2Fauto%2Fs3%2Faws4_request&X-Amz-Date=2025${b}0101T000000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=00`,
      ]) {
        const res = await rawHttp(Number(base.port), head(`/?${q}`, []));
        expect([400, 403], q).toContain(res.status);
        expect(res.body, q).toMatch(/<Error><Code>\w+<\/Code>/);
        expect(res.body, `${q}: a well-formed XML document`).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/);
        expect(res.body, q).not.toContain(SECRET);
      }
    }
    expect(lines.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(lines.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
