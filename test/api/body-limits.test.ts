/**
 * v4 request bodies within bounds: a body over `--api-body-limit` is refused with 413 in the envelope
 * before it is read (from its Content-Length, or while a chunked body is read), and a JSON body nested
 * deeper than the bound is a 400 in the envelope on every route that reads JSON, with no stack overflow.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { rawHttp } from '../helpers/raw-http.js';
import { loadConfig } from '../../src/config/config.js';
import { MAX_JSON_DEPTH } from '../../src/api/body-limit.js';

const LIMIT = 65_536;

describe('request body limits', () => {
  let server: TestServer;
  let account: string;
  beforeAll(async () => {
    server = await startTestServer({ flags: { 'api-body-limit': String(LIMIT) } });
    account = await accountId(server);
  });
  afterAll(async () => { await server.stop(); });

  const auth = () => `X-Auth-Email: ${server.email}\r\nX-Auth-Key: ${server.key}\r\n`;

  it('defaults to production\'s 100 MB and takes --api-body-limit', () => {
    expect(loadConfig({}, {}).apiBodyLimit).toBe(100 * 1024 * 1024);
    expect(loadConfig({ 'api-body-limit': '2048' }, {}).apiBodyLimit).toBe(2048);
    expect(() => loadConfig({ 'api-body-limit': 'lots' }, {})).toThrow(/--api-body-limit/);
  });

  it('refuses a Content-Length over the limit with 413 before reading the body (or authenticating)', async () => {
    for (const headers of [auth(), '']) {
      // Only 10 bytes of the announced body are ever sent: an answer proves the body was not awaited.
      const res = await rawHttp(server.running.httpPort,
        `POST /client/v4/zones HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n{"name":"a`);
      expect(res.status).toBe(413);
      expect(res.headers['connection']).toBe('close');
      expect(JSON.parse(res.body)).toEqual({ result: null, success: false, messages: [],
        errors: [{ code: 6131, message: `Request body too large: at most ${LIMIT} bytes are accepted` }] });
    }
  });

  it('answers Expect: 100-continue with 413 before the body is sent, and with 100 Continue under the limit', async () => {
    const refused = await rawHttp(server.running.httpPort,
      `POST /client/v4/zones HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body).errors[0].code).toBe(6131);

    const body = JSON.stringify({ name: 'continued.example', account: { id: account } });
    const socket = net.connect(server.running.httpPort, '127.0.0.1');
    let received = '';
    const seen = (text: string) => new Promise<void>((resolve) => {
      const check = () => { if (received.includes(text)) { socket.off('data', onData); resolve(); } };
      const onData = (d: Buffer) => { received += d.toString('latin1'); check(); };
      socket.on('data', onData);
      check();
    });
    socket.write(`POST /client/v4/zones HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`);
    await seen('HTTP/1.1 100 Continue');
    socket.write(body);
    await seen('"success":true');
    socket.destroy();
    expect(received).toMatch(/HTTP\/1\.1 200 OK/);
  });

  it('refuses a chunked body as soon as it passes the limit', async () => {
    const chunk = 'x'.repeat(16_384);
    const chunks = Array.from({ length: 5 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    // No final zero-length chunk: the body never ends, so only a refusal while reading can answer.
    const res = await rawHttp(server.running.httpPort,
      `POST /client/v4/zones HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).errors[0].code).toBe(6131);
  });

  it('serves a body just under the limit as usual', async () => {
    const padding = 'p'.repeat(LIMIT - 200);
    const res = await api(server, 'POST', '/zones', { name: 'under-limit.example', account: { id: account }, padding });
    expect(res.status).toBe(200);
    expect(res.body.result.name).toBe('under-limit.example');
  });

  it('refuses JSON nested deeper than the bound with 400 in the envelope, on every route that reads JSON', async () => {
    const zoneId = await createZone(server, 'deep-json.example');
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const bodies = [deep(5000), `{"name":${deep(5000)}}`, `{"a":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`, deep(MAX_JSON_DEPTH + 1)];
    const routes: [string, string][] = [
      ['POST', '/zones'], ['POST', `/zones/${zoneId}/dns_records`], ['PATCH', `/zones/${zoneId}/settings`], ['POST', `/zones/${zoneId}/dns_records/batch`],
      ['POST', '/user/tokens'], ['POST', '/accounts'], ['PATCH', `/zones/${zoneId}/dns_settings`],
    ];
    for (const [method, path] of routes) {
      for (const body of bodies) {
        const res = await api(server, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(400);
        expect(res.body.errors, `${method} ${path}`).toEqual([{ code: 6130, message: `Request body nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are accepted` }]);
      }
    }
  });

  it('counts only structure: brackets inside strings and nesting at the bound are fine', async () => {
    const inString = await api(server, 'POST', '/zones', `{"name":"${'['.repeat(5000)}","account":{"id":"${account}"}}`);
    expect(inString.status).toBe(400);
    expect(inString.body.errors[0]!.code).not.toBe(6130);
    const atBound = await api(server, 'POST', '/zones', `{"name":"at-bound.example","account":{"id":"${account}"},"x":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`);
    expect(atBound.status).toBe(200);
  });
});
