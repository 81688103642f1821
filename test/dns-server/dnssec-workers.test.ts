/**
 * The compiled `stratus serve` answers from its DNS thread and signs there: every answer a validating resolver
 * (unbound) gets for a signing zone validates (AD), the query log shows the thread answered them (it opens the
 * zone key with the secrets key given at its start), and an AXFR (handed to the thread) carries the zone signed.
 * Then the thread is killed (STRATUS_TEST_CRASH_DNS_THREAD: a query for that name throws in the thread) and the
 * server must start it again with its zones: /readyz not ready meanwhile, dig answered again, signed answers
 * validating again, the restart logged and counted.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from './dig.js';
import { startUnbound } from './unbound.js';
import { projectBuild, startCompiled, type CompiledBuild, type CompiledServer } from '../helpers/compiled-server.js';

const run = promisify(execFile);
const EMAIL = 'signing-workers@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const H = { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' };
const ZONE = 'workers-signed.example';
const CRASH = 'crash-the-dns-thread.test';
let admin: string;
let build: CompiledBuild;
let server: CompiledServer;
let dataDir: string;
const out = (): string => server.output();
let base: string;
let dnsPort: number;

async function api(method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${p}`, { method, headers: H, ...(body ? { body: JSON.stringify(body) } : {}) });
  const json = (await res.json()) as { success: boolean; result: unknown; errors: unknown };
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

beforeAll(async () => {
  build = projectBuild();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-signing-workers-'));
  server = await startCompiled(build, { dataDir, email: EMAIL, key: KEY, flags: ['--dns-workers', '1'], env: { STRATUS_TEST_CRASH_DNS_THREAD: CRASH } });
  ({ base, dnsPort, admin } = server);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${out().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function validates(names: readonly string[], ds: string): Promise<void> {
  const unbound = await startUnbound(dnsPort, [ZONE], [ds]);
  try {
    for (const name of names) {
      const r = await dig(unbound.port, name, 'A', { extra: ['+rec', '+dnssec'] });
      expect(r.flags, `${name}\n${unbound.log().slice(-2000)}`).toContain('ad');
    }
  } finally {
    await unbound.stop();
  }
}

const names = Array.from({ length: 40 }, (_, i) => `n${i}.${ZONE}`);
let ds = '';

describe('signing in the DNS thread', () => {
  it('answers from the thread validate, and its AXFR is signed', async () => {
    expect(out()).toMatch(/"dnsThread":true/);
    const [account] = await api('GET', '/accounts');
    const zone = await api('POST', '/zones', { account: { id: account.id }, name: ZONE });
    for (const [i, name] of names.entries()) await api('POST', `/zones/${zone.id}/dns_records`, { type: 'A', name, content: `192.0.2.${i + 1}`, ttl: 300 });
    ds = (await api('PATCH', `/zones/${zone.id}/dnssec`, { status: 'active' })).ds;
    // The thread's query log lines carry "thread":"dns"; wait until it serves the zone's keys.
    await until('the DNSKEY from the thread', async () => (await dig(dnsPort, ZONE, 'DNSKEY', { extra: ['+dnssec'] })).answer.some((l) => l.includes(' RRSIG DNSKEY ')));
    await validates(names, ds);
    const threadLine = (name: string) => out().split('\n').some((l) => l.includes(`"name":"${name}"`) && l.includes('"thread":"dns"'));
    expect(names.some(threadLine), out().slice(-3000)).toBe(true);
    const axfr = await run('dig', ['-p', String(dnsPort), '@127.0.0.1', ZONE, 'AXFR', '+nocmd', '+nostats'], { maxBuffer: 1 << 24 });
    for (const type of ['DNSKEY', 'RRSIG', 'NSEC']) expect(axfr.stdout, axfr.stdout.slice(0, 2000)).toMatch(new RegExp(`\\s${type}\\s`));
    expect(axfr.stdout).toContain(`n39.${ZONE}.`);
  });

  it('a crashed thread is started again with its zones, signed answers validate again', async () => {
    expect(ds).not.toBe('');
    expect((await fetch(`${admin}/readyz`)).status).toBe(200);
    // Kill the thread: the query throws in the thread, outside every handler (no answer to it).
    await dig(dnsPort, CRASH, 'A', { extra: ['+tries=1', '+time=1'] }).catch(() => undefined);
    await until('the restart in the log', () => /DNS thread ended; starting it again/.test(out()));
    await until('dig answered again', async () => {
      const r = await dig(dnsPort, names[7]!, 'A', { extra: ['+dnssec', '+tries=1', '+time=1'] }).catch(() => undefined);
      return r !== undefined && r.status === 'NOERROR' && r.answer.some((l) => l.includes('192.0.2.8')) && r.answer.some((l) => l.includes(' RRSIG A '));
    });
    await until('/readyz ready again', async () => (await fetch(`${admin}/readyz`)).status === 200);
    await validates(names, ds);
    const metrics = await (await fetch(`${admin}/metrics`)).text();
    expect(metrics).toMatch(/^stratus_dns_thread_restarts_total 1$/m);
    expect(out().match(/DNS thread ended; starting it again/g)).toHaveLength(1);
    expect(server.child.exitCode).toBeNull();
  }, 180_000);
});
