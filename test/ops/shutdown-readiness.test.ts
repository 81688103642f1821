/**
 * Draining: once a spawned `stratus serve` gets SIGTERM, `/readyz` answers 503 naming `stopping` (a load
 * balancer takes the node out) while `/healthz` stays 200 and a request in flight still finishes; then the
 * process exits 0. Needs `npm run build`.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnStratus, type SpawnedStratus } from '../faults/spawn.js';

let node: SpawnedStratus | undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-drain-'));

afterAll(async () => {
  if (node && node.child.exitCode === null) { node.child.kill('SIGKILL'); await node.exited; }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function api(method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${node!.apiBase}${p}`, {
    method, headers: { 'x-auth-email': node!.email, 'x-auth-key': node!.key, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return res.json();
}

it('is not ready from SIGTERM on, stays live, and finishes the request in flight', async () => {
  node = await spawnStratus(dataDir, { 'shutdown-timeout': '60', 'log-level': 'info' });
  const account = (await api('GET', '/accounts')).result[0].id;
  const zoneId = (await api('POST', '/zones', { name: 'drain.example', account: { id: account } })).result.id;
  expect((await fetch(`${node.adminUrl}/readyz`)).status).toBe(200);

  // A create whose body the server is still waiting for (Expect: 100-continue).
  const body = JSON.stringify({ type: 'TXT', name: 'late', content: '"drained"', ttl: 120 });
  const url = new URL(`${node.apiBase}/zones/${zoneId}/dns_records`);
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'x-auth-email': node.email, 'x-auth-key': node.key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' } });
  const started = new Promise<void>((resolve) => req.on('continue', () => resolve()));
  const response = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
    req.on('error', reject);
  });
  req.flushHeaders();
  await started;

  node.child.kill('SIGTERM');
  const end = Date.now() + 20_000;
  let ready = await fetch(`${node.adminUrl}/readyz`);
  while (ready.status !== 503 && Date.now() < end) ready = await fetch(`${node.adminUrl}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({ phase: 'stopping', failing: expect.arrayContaining(['stopping']) });
  expect((await fetch(`${node.adminUrl}/healthz`)).status).toBe(200);

  req.end(body);
  expect(await response).toBe(200);
  expect(await node.exited, node.output()).toBe(0);
  const access = node.output().split('\n').filter((l) => l.includes('"component":"access"') && l.includes('/client/v4/zones/:zone_id/dns_records'));
  expect(access.some((l) => l.includes('"method":"POST"') && l.includes('"status":200'))).toBe(true);
}, 120_000);
