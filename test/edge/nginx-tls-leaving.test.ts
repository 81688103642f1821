/**
 * A name moved to another TLS range stays served by the range it left until nginx's old workers are gone
 * (docs/edge.md, "Where TLS ends"): an old worker, until it has stopped accepting after the reload, routes a new
 * connection by the names as they were, straight to the range socket the name left. The test makes that
 * connection itself (the PROXY protocol header, then the TLS handshake for the name, on the old range's socket),
 * so what the old worker's connection meets is checked exactly, with no race on when nginx signals its workers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx, findStreamModule, NginxFront } from '../../src/runtime/front/nginx-front.js';
import { rangeSocket, type TlsName, type TlsRange } from '../../src/runtime/front/tls-config.js';
import { holdListeningSocket, type HeldSocket } from '../../src/runtime/workerd/socket-holder.js';
import { createLogger } from '../../src/shared/logger.js';
import { eventually } from './harness.js';
import { holdRequest } from '../helpers/nginx-front.js';

const nginx = findNginx();
const streamModule = findStreamModule();
const WIDE: TlsRange = { min: 'TLSv1', max: 'TLSv1.3' };
const NARROW: TlsRange = { min: 'TLSv1.2', max: 'TLSv1.3' };

/** A TLS handshake for `servername` on a range's socket, as nginx's stream server makes it (PROXY header first): the version, or the error. */
function handshake(socketPath: string, servername: string): Promise<string> {
  return new Promise((resolve) => {
    const raw = net.connect(socketPath, () => {
      raw.write('PROXY TCP4 192.0.2.7 192.0.2.1 40000 443\r\n');
      const t = tls.connect({ socket: raw, servername, rejectUnauthorized: false }, () => { resolve(t.getProtocol() ?? ''); t.destroy(); });
      t.on('error', (err) => { resolve(`refused: ${err.message}`); raw.destroy(); });
    });
    raw.on('error', (err) => resolve(`refused: ${err.message}`));
  });
}

describe.skipIf(!nginx || !streamModule)('a name leaving its TLS range', () => {
  let dir: string;
  let edge: HeldSocket;
  let edgeTls: HeldSocket;
  let front: NginxFront;
  let slot: http.Server;
  const held: http.ServerResponse[] = [];
  let certFile: string;

  const names = (moved: TlsRange): TlsName[] => [
    { name: 'stay.test', certFile, range: WIDE },
    { name: 'move.test', certFile, range: moved },
  ];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-tls-leaving-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '1', '-subj', '/CN=stay.test', '-addext', 'subjectAltName=DNS:stay.test,DNS:move.test'], { cwd: dir, stdio: 'pipe' });
    certFile = path.join(dir, 'cert.pem');
    fs.writeFileSync(certFile, fs.readFileSync(path.join(dir, 'c.pem'), 'utf8') + fs.readFileSync(path.join(dir, 'k.pem'), 'utf8'), { mode: 0o600 });
    const socket = path.join(dir, 'slot0.sock');
    // The slot answers nothing until the test lets it: a request in flight keeps an old worker alive after a reload.
    slot = http.createServer((_req, res) => { held.push(res); });
    await new Promise<void>((resolve) => slot.listen(socket, () => resolve()));
    edge = await holdListeningSocket('127.0.0.1', 0);
    edgeTls = await holdListeningSocket('127.0.0.1', 0);
    front = await NginxFront.start({
      binary: nginx!, edgeFd: edge.fd, dir: path.join(dir, 'nginx'), logger: createLogger('silent'), listen: { host: edge.host, port: edge.port },
      slotSockets: [socket], maxRequestBytes: 1 << 20, colo: 'STR', workers: 1, secret: 'test-secret',
      tls: { fd: edgeTls.fd, listen: { host: edgeTls.host, port: edgeTls.port }, module: streamModule!, nodeSocket: path.join(dir, 'node-tls.sock') },
    });
  }, 30_000);

  afterAll(async () => {
    for (const res of held) res.end();
    await front?.stop(1000);
    await edge?.close();
    await edgeTls?.close();
    slot?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is served by the range it left while a worker from before the move lives, and only by its new range after', async () => {
    const nginxDir = path.join(dir, 'nginx');
    const wide = rangeSocket(nginxDir, WIDE);
    const narrow = rangeSocket(nginxDir, NARROW);
    front.setTls({ names: names(WIDE) });
    await front.reloadNow();
    expect(await handshake(wide, 'move.test')).toMatch(/^TLSv1\.[23]$/);
    await eventually(async () => expect(front.workerPids()).toHaveLength(1));
    const [before] = front.workerPids();
    // A request in flight on the worker from before the move: it lives on after the reload.
    const { answered } = await holdRequest(edge.port, held);
    front.setTls({ names: names(NARROW) });
    await front.reloadNow();
    expect(front.workerPids()).not.toContain(before);
    // Its new range serves it; the range it left still does (where the old worker's connections go).
    expect(await handshake(narrow, 'move.test')).toMatch(/^TLSv1\.[23]$/);
    expect(await handshake(wide, 'move.test')).toMatch(/^TLSv1\.[23]$/);
    expect(await handshake(wide, 'stay.test')).toMatch(/^TLSv1\.[23]$/);
    // The old worker gone, the range it left refuses it (and keeps serving the names it has).
    held[0]!.end('done');
    expect(await answered).toBe(200);
    await eventually(async () => expect(await handshake(wide, 'move.test')).toMatch(/^refused/), 20_000);
    expect(await handshake(narrow, 'move.test')).toMatch(/^TLSv1\.[23]$/);
    expect(await handshake(wide, 'stay.test')).toMatch(/^TLSv1\.[23]$/);
  });
});
