/**
 * nginx's processes as the access log's rotation counts them (front/nginx-access.ts: the file set aside is
 * deleted once no nginx process holds it): a worker that a reload told to finish is still one of them while it
 * finishes its requests (it holds the old file, with records in its buffer, until it reopens its logs), though it
 * no longer counts as serving. Counting only serving workers deleted the file under such a worker: its buffered
 * records were lost (seen as missing records across a deploy in a loaded whole run).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx, type NginxFront } from '../../src/runtime/front/nginx-front.js';
import { holdRequest, startTestNginxFront, type TestNginxFront } from '../helpers/nginx-front.js';
import { eventually } from './harness.js';

const nginx = findNginx();

describe.skipIf(!nginx)("nginx's processes across a reload", () => {
  let dir: string;
  let door: TestNginxFront;
  let front: NginxFront;
  let slot: http.Server;
  const held: http.ServerResponse[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-nginx-processes-'));
    const socket = path.join(dir, 'slot0.sock');
    // The slot answers nothing until the test lets it: a request in flight keeps its worker alive after a reload.
    slot = http.createServer((_req, res) => { held.push(res); });
    await new Promise<void>((resolve) => slot.listen(socket, () => resolve()));
    door = await startTestNginxFront(nginx!, dir, [socket]);
    front = door.front;
  }, 30_000);

  afterAll(async () => {
    for (const res of held) res.end();
    await door?.close();
    slot?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts a worker finishing its requests after a reload as a process, not as serving', async () => {
    // nginx serves once its master has read the configuration; its worker may show a moment later.
    await eventually(async () => expect(front.workerPids()).toHaveLength(1));
    const [before] = front.workerPids();
    const { answered } = await holdRequest(door.port, held);
    await front.reloadNow();
    const serving = front.workerPids();
    expect(serving).not.toContain(before);
    expect(serving).toHaveLength(1);
    // still alive, finishing the held request: one of nginx's processes
    expect(front.processes()).toEqual(expect.arrayContaining([before, ...serving]));
    held[0]!.end('done');
    expect(await answered).toBe(200);
    await eventually(async () => expect(front.processes()).not.toContain(before));
  });
});
