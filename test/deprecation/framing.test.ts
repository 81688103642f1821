/** Transfer-Encoding + Content-Length over a raw TCP socket: declined with an envelope (6003 / 6121) and the connection closed, at every api date. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';

let server: TestServer;
let zoneId: string;

/** Sends raw bytes and collects everything the server answers until it closes the connection. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(5000, () => { socket.destroy(); reject(new Error('timeout')); });
  });
}

function request(apiDate: string, withBoth: boolean): string {
  const body = '{"value":"off"}';
  const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  return [
    `PATCH /client/v4/zones/${zoneId}/settings/brotli HTTP/1.1`,
    'Host: 127.0.0.1',
    `X-Auth-Email: ${server.email}`,
    `X-Auth-Key: ${server.key}`,
    'Content-Type: application/json',
    `api-version: ${apiDate}`,
    'Transfer-Encoding: chunked',
    ...(withBoth ? [`Content-Length: ${body.length}`] : []),
    '', '',
  ].join('\r\n') + chunked;
}

function parse(raw: string): { status: number; headers: string; body: any } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const status = Number(head!.split(' ')[1]);
  let body = rest.join('\r\n\r\n');
  if (/transfer-encoding: chunked/i.test(head!)) {
    let out = '';
    while (body.length > 0) {
      const i = body.indexOf('\r\n');
      const n = parseInt(body.slice(0, i), 16);
      if (!n) break;
      out += body.slice(i + 2, i + 2 + n);
      body = body.slice(i + 2 + n + 2);
    }
    body = out;
  }
  return { status, headers: head!.toLowerCase(), body: JSON.parse(body) };
}

describe('Transfer-Encoding together with Content-Length', () => {
  beforeAll(async () => { server = await startTestServer(); zoneId = await createZone(server, 'framing.example'); });
  afterAll(async () => { await server?.stop(); });

  it('is declined with a 400 envelope (6003 / 6121) from 2023-07-01 and the connection closes', async () => {
    const res = parse(await rawRequest(Number(new URL(server.url).port), request('2023-07-01', true)));
    expect(res.status).toBe(400);
    expect(res.headers).toContain('connection: close');
    expect(res.body).toMatchObject({ success: false, result: null, errors: [{ code: 6003, message: 'Invalid request headers', error_chain: [{ code: 6121 }] }] });
    expect(res.body.errors[0].error_chain[0].message).toContain('Transfer-Encoding and Content-Length');
  });

  it('is declined the same way before 2023-07-01: Node\'s strict parser refuses it before the api date is read', async () => {
    const res = parse(await rawRequest(Number(new URL(server.url).port), request('2023-06-30', true)));
    expect(res.status).toBe(400);
    expect(res.headers).toContain('connection: close');
    expect(res.body).toMatchObject({ success: false, errors: [{ code: 6003, error_chain: [{ code: 6121 }] }] });
    const setting = await server.sdk().zones.settings.get('brotli', { zone_id: zoneId });
    expect(setting).toMatchObject({ value: 'on' }); // never served
  });

  it('leaves requests with only one framing header alone', async () => {
    const res = parse(await rawRequest(Number(new URL(server.url).port), request('2023-07-01', false).replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n')));
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ id: 'brotli', value: 'off' });
  });
});
