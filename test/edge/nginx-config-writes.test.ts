/**
 * The nginx front replaces its configuration whole on every reload (front/nginx-front.ts, `writeWhole`): nginx's
 * master reads a configuration 4 KiB at a time, so a file rewritten in place while it still parsed the last one
 * could be read as two configurations spliced into one (one's host maps naming the other's upstreams: a request
 * answered by another script, seen once in a fresh-clone run under load). A reader that opened the configuration
 * before a rewrite must read the old one to its end, and nginx must load the new one.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import { startTestNginxFront, type TestNginxFront } from '../helpers/nginx-front.js';

const nginx = findNginx();

describe.skipIf(!nginx)("the nginx front's configuration writes", () => {
  let dir: string;
  let door: TestNginxFront;
  let slot: http.Server;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-nginx-writes-'));
    const socket = path.join(dir, 'slot0.sock');
    slot = http.createServer((_req, res) => res.end('slot'));
    await new Promise<void>((resolve) => slot.listen(socket, () => resolve()));
    door = await startTestNginxFront(nginx!, dir, [socket]);
  }, 30_000);

  afterAll(async () => {
    await door?.close();
    slot?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('replaces the file whole: a reader that opened it before a reload reads the old configuration to its end', async () => {
    const file = path.join(dir, 'nginx', 'nginx.conf');
    const before = fs.readFileSync(file, 'utf8');
    expect(before.length).toBeGreaterThan(4096); // longer than one of nginx's reads
    const reader = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(4096);
      fs.readSync(reader, head, 0, head.length, 0);
      door.front.setFast('  # a change of the fast routes\n');
      await door.front.reloadNow();
      const after = fs.readFileSync(file, 'utf8');
      expect(after).toContain('# a change of the fast routes');
      const rest = Buffer.alloc(before.length);
      const n = fs.readSync(reader, rest, 0, rest.length, 4096);
      expect(head.toString('utf8') + rest.subarray(0, n).toString('utf8')).toBe(before);
    } finally {
      fs.closeSync(reader);
    }
    // nginx loaded the new configuration and serves with it
    const status = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: door.port, path: '/', headers: { host: 'any.test' }, agent: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject);
    });
    expect(status).toBe(200);
    expect(fs.readdirSync(path.join(dir, 'nginx')).filter((f) => f.endsWith('.next'))).toEqual([]);
  });
});
