/**
 * A request answered before its body was read (S3's 501 to a PUT on a subresource Stratus does not implement)
 * whose client then closes mid-body is one request: one access line with its status, and no second line
 * `route: "unparsed", status: 400` for the unfinished body Node's parser sees end early. A request the parser
 * truly refuses is still logged as `unparsed`.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { signedHeaders } from '../helpers/s3-sign.js';
import { waitUntil } from '../faults/load.js';
import { accessLines, captureLogger } from './capture-logger.js';
import { httpRequests, metricSample } from '../helpers/metrics.js';

const capture = captureLogger('info');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ logger: capture.logger });
  await testS3Client(server.running.s3Url!).send(new CreateBucketCommand({ Bucket: 'early' }));
}, 60_000);
afterAll(async () => { await server?.stop(); });

/**
 * Writes `head` and part of a body, waits for the answer's status line, then closes its side (FIN) and
 * resolves with the answer once the server has closed the connection.
 */
function answerThenHangUp(port: number, head: string, partialBody: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.concat([Buffer.from(head, 'latin1'), partialBody])));
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (/\r\n\r\n/.test(got) && socket.writable) socket.end();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err); });
    socket.on('close', () => resolve(got));
  });
}

describe('access lines of a request answered before its body', () => {
  it('logs the 501 once and no unparsed 400 when the client closes mid-body', async () => {
    const url = new URL(server.running.s3Url!);
    const unparsed = httpRequests('s3', 'unparsed', 'other', 400);
    const unparsedBefore = await metricSample(server.running.adminUrl!, unparsed);
    const length = 1_000_000;
    const headers = await signedHeaders('PUT', url, '/early?acl', { 'content-length': String(length), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' });
    const head = `PUT /early?acl HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
    const answer = await answerThenHangUp(Number(url.port), head, Buffer.alloc(64 * 1024, 0x61));
    expect(answer).toMatch(/^HTTP\/1\.1 501 /);

    // A request the parser refuses, on another connection: it is logged as unparsed, after the one above.
    const bad = await answerThenHangUp(Number(url.port), 'GET /early HTTP/1.1\r\nHost: x\r\nBad\u0001Header: y\r\n\r\n', Buffer.alloc(0));
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    await waitUntil(() => accessLines(capture.lines(), 's3').some((l) => l.route === 'unparsed'), 10_000, 'the unparsed access line');

    const lines = accessLines(capture.lines(), 's3').filter((l) => l.route !== 'CreateBucket');
    expect(lines.filter((l) => l.status === 501)).toHaveLength(1);
    expect(lines.filter((l) => l.route === 'unparsed')).toHaveLength(1);
    expect(await metricSample(server.running.adminUrl!, unparsed)).toBe(unparsedBefore + 1);
  });
});
