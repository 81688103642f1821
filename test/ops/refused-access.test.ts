/**
 * Requests a listener refuses before its application sees them still get their access line and are counted:
 * Node's parser refusing oversized headers (431, route `unparsed`) and an `Expect: 100-continue` request over
 * `--api-body-limit` (413 before the body is sent). The refused header's bytes never reach the log.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitUntil } from '../faults/load.js';
import { accessLines, captureLogger } from './capture-logger.js';
import { httpRequests, metricSample } from '../helpers/metrics.js';

const capture = captureLogger('info');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ logger: capture.logger, flags: { 'api-body-limit': '2048' } });
}, 60_000);
afterAll(async () => { await server?.stop(); });

/** Sends raw bytes to `url`'s port and reads until the server closes or the status line arrives whole. */
function raw(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (/\r\n\r\n/.test(got)) socket.end();
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('access lines of refused requests', () => {
  it('logs a 431 from the parser as unparsed and a 413 before 100 Continue under its route', async () => {
    const unparsed = httpRequests('v4', 'unparsed', 'other', 431);
    const unparsedBefore = await metricSample(server.running.adminUrl!, unparsed);
    const marker = 'oversized-header-value-5e1f';
    const huge = await raw(server.url, `GET /client/v4/zones HTTP/1.1\r\nHost: x\r\nX-Big: ${marker}${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    const early = await raw(server.url, `PUT /client/v4/zones/abc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n`);
    expect(early).toMatch(/^HTTP\/1\.1 413 /);

    await waitUntil(() => accessLines(capture.lines(), 'v4').length >= 2, 10_000, 'v4 access lines');
    const v4 = accessLines(capture.lines(), 'v4');
    expect(v4.find((l) => l.status === 431)).toMatchObject({ route: 'unparsed', method: 'other', remote: '127.0.0.1' });
    expect(v4.find((l) => l.status === 413)).toMatchObject({ method: 'PUT', bytesIn: 100000 });
    expect(capture.text()).not.toContain(marker);
    expect(await metricSample(server.running.adminUrl!, unparsed)).toBe(unparsedBefore + 1);
  });
});
