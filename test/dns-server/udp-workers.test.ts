/**
 * The compiled `stratus serve` with its DNS thread answering UDP from its own copy of the zones: an API write
 * is visible to every query sent after the call returns (single writes, taken by the thread on its own, and
 * imports big enough to be queued, answered by the main thread until applied), and so is a zone becoming
 * active or stopping being active. Runs the project's build, dist/ (workers only run from compiled code).
 */
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { upsertUser } from '../../src/accounts/users.js';
import { projectBuild, startCompiled, type CompiledBuild, type CompiledServer } from '../helpers/compiled-server.js';

const run = promisify(execFile);
const EMAIL = 'workers@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const H = { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' };
let build: CompiledBuild;
let server: CompiledServer;
let dataDir: string;
let base: string;
let dnsPort: number;

async function api(method: string, p: string, body?: unknown, headers: Record<string, string> = H): Promise<any> {
  const res = await fetch(`${base}${p}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  const json = (await res.json()) as { success: boolean; result: unknown; errors: unknown };
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

function ask(name: string, type: dnsPacket.RecordType = 'A'): Promise<dnsPacket.Packet> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const t = setTimeout(() => { s.close(); reject(new Error('no answer')); }, 2000);
    s.on('message', (m) => { clearTimeout(t); s.close(); resolve(dnsPacket.decode(m)); });
    s.send(dnsPacket.encode({ type: 'query', id: 1, questions: [{ type, name }] }), dnsPort, '127.0.0.1');
  });
}

/** Starts the compiled server on `dataDir` (ports: free ones) and waits for its listeners. */
async function startServer(): Promise<void> {
  server = await startCompiled(build, { dataDir, email: EMAIL, key: KEY });
  base = server.base;
  dnsPort = server.dnsPort;
}

beforeAll(async () => {
  build = projectBuild();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-workers-'));
  await startServer();
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the DNS thread', () => {
  it('starts with the server and never answers from a copy older than a returned API call', async () => {
    expect(server.output()).toMatch(/"dnsThread":true/);
    const [account] = await api('GET', '/accounts');
    const zone = await api('POST', '/zones', { account: { id: account.id }, name: 'workers.example' });
    let stale = 0;
    for (let i = 0; i < 40; i++) {
      const name = `n${i}.workers.example`;
      const before = await ask(name);
      expect((before as { rcode?: string }).rcode).toBe('NXDOMAIN');
      const rec = await api('POST', `/zones/${zone.id}/dns_records`, { type: 'A', name, content: '192.0.2.7' });
      for (let k = 0; k < 4; k++) if (((await ask(name)).answers ?? []).length !== 1) stale++;
      await api('PATCH', `/zones/${zone.id}/dns_records/${rec.id}`, { content: '192.0.2.8' });
      for (let k = 0; k < 4; k++) if ((((await ask(name)).answers ?? [])[0] as { data?: string } | undefined)?.data !== '192.0.2.8') stale++;
      // Writes in a row, no query between them: the workers were marked stale by the first one.
      await api('PATCH', `/zones/${zone.id}/dns_records/${rec.id}`, { content: '192.0.2.9' });
      await api('PATCH', `/zones/${zone.id}/dns_records/${rec.id}`, { content: '192.0.2.10' });
      for (let k = 0; k < 4; k++) if ((((await ask(name)).answers ?? [])[0] as { data?: string } | undefined)?.data !== '192.0.2.10') stale++;
      await api('DELETE', `/zones/${zone.id}/dns_records/${rec.id}`);
      for (let k = 0; k < 4; k++) if (((await ask(name)) as { rcode?: string }).rcode !== 'NXDOMAIN') stale++;
    }
    expect(stale).toBe(0);
  });

  it('answers names of an import (a queued changeset) as soon as the import returns', async () => {
    const [account] = await api('GET', '/accounts');
    const zone = await api('POST', '/zones', { account: { id: account.id }, name: 'import-workers.example' });
    for (let round = 0; round < 3; round++) {
      const lines = Array.from({ length: 1500 }, (_, i) => `r${round}-${i} 300 IN A 192.0.2.${i % 250}`);
      const form = new FormData();
      form.append('file', new Blob([`${lines.join('\n')}\n`]), 'zone.txt');
      const res = await fetch(`${base}/zones/${zone.id}/dns_records/import`, { method: 'POST', headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY }, body: form });
      expect(((await res.json()) as { success: boolean }).success).toBe(true);
      for (const i of [0, 777, 1499]) expect(((await ask(`r${round}-${i}.import-workers.example`)).answers ?? []).length).toBe(1);
    }
    // TCP and AXFR are answered from the same copy (the main thread keeps no records).
    const tcp = await run('dig', ['@127.0.0.1', '-p', String(dnsPort), '+tcp', '+short', 'r2-1499.import-workers.example', 'A']);
    expect(tcp.stdout.trim()).toBe(`192.0.2.${1499 % 250}`);
    const axfr = await run('dig', ['@127.0.0.1', '-p', String(dnsPort), 'import-workers.example', 'AXFR', '+nocmd', '+nostats'], { maxBuffer: 1 << 26 });
    const owners = axfr.stdout.split('\n').filter((l) => /^r\d-\d+\.import-workers\.example\.\s/.test(l));
    expect(owners).toHaveLength(4500);

    // Started again on the same data: the zones are loaded into the thread before the first answer.
    await server.stop();
    await startServer();
    for (const i of [0, 1499]) expect(((await ask(`r1-${i}.import-workers.example`)).answers ?? []).length).toBe(1);
    expect(((await ask('nothing.import-workers.example')) as { rcode?: string }).rcode).toBe('NXDOMAIN');
  }, 60_000);

  it('serves a zone as soon as it becomes active and stops at once when it stops being active', async () => {
    const database = await openDatabase({ dataDir });
    const other = await upsertUser(database.db, { email: 'workers-other@example.com' }).finally(() => database.close());
    const otherH = { 'x-auth-email': other.email, 'x-auth-key': other.key, 'content-type': 'application/json' };
    const [account] = await api('GET', '/accounts');
    // Another account's zone above it delegates `app` to the admin's name servers: the child is active.
    const parent = await api('POST', '/zones', { account: { id: other.accountId }, name: 'late-workers.example' }, otherH);
    expect(parent.status).toBe('active');
    const ns: string[] = [];
    for (const content of ['ns1.stratus.invalid', 'ns2.stratus.invalid']) ns.push((await api('POST', `/zones/${parent.id}/dns_records`, { type: 'NS', name: 'app', content, ttl: 1 }, otherH)).id);
    const child = await api('POST', '/zones', { account: { id: account.id }, name: 'app.late-workers.example' });
    expect(child.status).toBe('active');
    await api('POST', `/zones/${child.id}/dns_records`, { type: 'A', name: 'www.app.late-workers.example', content: '192.0.2.7' });
    const seen = async (): Promise<string[]> => {
      const out: string[] = [];
      for (let k = 0; k < 8; k++) {
        const res = (await ask('www.app.late-workers.example')) as { rcode?: string; answers?: unknown[] };
        out.push(`${res.rcode}/${(res.answers ?? []).length}`);
      }
      return [...new Set(out)];
    };
    expect(await seen()).toEqual(['NOERROR/1']);
    // The parent takes the delegation back: the child is moved and answers nothing.
    for (const id of ns) await api('DELETE', `/zones/${parent.id}/dns_records/${id}`, undefined, otherH);
    expect((await api('GET', `/zones/${child.id}`)).status).toBe('moved');
    expect(await seen(), 'the parent answers').toEqual(['NXDOMAIN/0']);
    await api('DELETE', `/zones/${parent.id}`, undefined, otherH);
    expect(await seen(), 'no zone holds the name').toEqual(['REFUSED/0']);
    await api('PUT', `/zones/${child.id}/activation_check`);
    expect((await api('GET', `/zones/${child.id}`)).status).toBe('active');
    expect(await seen(), 'active again').toEqual(['NOERROR/1']);
  });
});
