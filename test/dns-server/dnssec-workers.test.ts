/**
 * The compiled `stratus serve` with UDP worker processes signs in the workers too: every answer a validating
 * resolver (unbound) gets for a signing zone validates (AD), and the query log shows workers answered some of
 * them (the workers open the zone key with the secrets key the main process sends over IPC).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from './dig.js';
import { startUnbound } from './unbound.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BUILD = path.join(ROOT, 'node_modules', '.cache', `stratus-dnssec-workers-test-${process.pid}`);
const EMAIL = 'signing-workers@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const H = { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' };
const ZONE = 'workers-signed.example';
let child: ChildProcess;
let out = '';
let dataDir: string;
let base: string;
let dnsPort: number;

async function api(method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${p}`, { method, headers: H, ...(body ? { body: JSON.stringify(body) } : {}) });
  const json = (await res.json()) as { success: boolean; result: unknown; errors: unknown };
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

beforeAll(async () => {
  await run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', BUILD]).catch(() => {});
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-signing-workers-'));
  child = spawn(process.execPath, [path.join(BUILD, 'cli.js'), 'serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0', '--admin', '127.0.0.1:0', '--edge', 'off',
    '--auth-email', EMAIL, '--auth-key', KEY, '--log-level', 'info', '--dns-workers', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const end = Date.now() + 60_000;
  while (!/DNS listening on 127\.0\.0\.1:(\d+)/.test(out)) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`stratus did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  base = /v4 API listening on (http[^\s"]+)/.exec(out)![1]!;
  dnsPort = Number(/DNS listening on 127\.0\.0\.1:(\d+)/.exec(out)![1]);
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  fs.rmSync(BUILD, { recursive: true, force: true });
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(os.availableParallelism() < 2)('signing in UDP workers', () => {
  it('answers from workers validate', async () => {
    expect(out).toMatch(/"udpWorkers":[1-9]/);
    const [account] = await api('GET', '/accounts');
    const zone = await api('POST', '/zones', { account: { id: account.id }, name: ZONE });
    const names = Array.from({ length: 40 }, (_, i) => `n${i}.${ZONE}`);
    for (const [i, name] of names.entries()) await api('POST', `/zones/${zone.id}/dns_records`, { type: 'A', name, content: `192.0.2.${i + 1}`, ttl: 300 });
    const { ds } = await api('PATCH', `/zones/${zone.id}/dnssec`, { status: 'active' });
    // Wait until a worker has the signing zone (its query log names the zone), then resolve through unbound.
    const workerLine = (name: string) => out.split('\n').some((l) => l.includes(`"name":"${name}"`) && /"pid":\d+/.test(l) && !l.includes(`"pid":${child.pid},`));
    for (let i = 0; !workerLine(ZONE) && i < 200; i++) await dig(dnsPort, ZONE, 'DNSKEY', { extra: ['+dnssec'] });
    const unbound = await startUnbound(dnsPort, [ZONE], [ds]);
    try {
      for (const name of names) {
        const r = await dig(unbound.port, name, 'A', { extra: ['+rec', '+dnssec'] });
        expect(r.flags, `${name}\n${unbound.log().slice(-2000)}`).toContain('ad');
      }
    } finally {
      await unbound.stop();
    }
    expect(names.some(workerLine), out.slice(-3000)).toBe(true);
  });
});
