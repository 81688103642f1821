/**
 * A big zone in the compiled `stratus serve` with its DNS thread: AXFR is streamed from the thread's zone tree
 * in slices (dig and kdig read every record of one version while the zone changes), and /readyz across a
 * thread restart (STRATUS_TEST_CRASH_DNS_THREAD: a query for that name throws in the thread): not ready from
 * the crash until the new thread holds every zone again, then ready, and answering the zone's records.
 */
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from './dig.js';
import { projectBuild, startCompiled, type CompiledBuild, type CompiledServer } from '../helpers/compiled-server.js';

const run = promisify(execFile);
const EMAIL = 'bigzone@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const H = { 'x-auth-email': EMAIL, 'x-auth-key': KEY };
const CRASH = 'crash-the-dns-thread.test';
const ZONE = 'bigthread.example';
const RECORDS = 30_000;
let build: CompiledBuild;
let server: CompiledServer;
let dataDir: string;
const out = (): string => server.output();
let base: string;
let admin: string;
let dnsPort: number;
let zoneId: string;

async function api(method: string, p: string, body?: unknown, form?: FormData): Promise<any> {
  const res = await fetch(`${base}${p}`, { method, headers: form ? H : { ...H, 'content-type': 'application/json' }, body: form ?? (body ? JSON.stringify(body) : undefined) });
  const json = (await res.json()) as { success: boolean; result: unknown; errors: unknown };
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

async function until(what: string, cond: () => Promise<boolean> | boolean, ms = 120_000): Promise<void> {
  for (const end = Date.now() + ms; !(await cond());) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${out().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The A record of `name` over UDP (retried until answered: the thread may hold the query while it loads). */
async function address(name: string): Promise<string[]> {
  for (let i = 0; ; i++) {
    const answer = await new Promise<dnsPacket.Packet | undefined>((resolve) => {
      const s = dgram.createSocket('udp4');
      const t = setTimeout(() => { s.close(); resolve(undefined); }, 2000);
      s.on('message', (m) => { clearTimeout(t); s.close(); resolve(dnsPacket.decode(m)); });
      s.send(dnsPacket.encode({ type: 'query', id: i, questions: [{ type: 'A', name }] }), dnsPort, '127.0.0.1');
    });
    if (answer) return (answer.answers ?? []).map((a) => String((a as { data: unknown }).data));
    if (i > 30) throw new Error(`no answer for ${name}`);
  }
}

const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

beforeAll(async () => {
  build = projectBuild();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-big-zone-thread-'));
  server = await startCompiled(build, { dataDir, email: EMAIL, key: KEY, flags: ['--dns-workers', '1', '--rate-limit', '0'], env: { STRATUS_TEST_CRASH_DNS_THREAD: CRASH } });
  ({ base, dnsPort, admin } = server);
  const [account] = await api('GET', '/accounts');
  zoneId = (await api('POST', '/zones', { account: { id: account.id }, name: ZONE })).id;
  for (let i = 0; i < RECORDS;) {
    const lines: string[] = [];
    for (const end = Math.min(RECORDS, i + 8000); i < end; i++) lines.push(`h${i} 300 IN A ${ip(i)}`);
    const form = new FormData();
    form.append('file', new Blob([`${lines.join('\n')}\n`]), 'zone.txt');
    await api('POST', `/zones/${zoneId}/dns_records/import`, undefined, form);
  }
}, 240_000);

afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The records of an AXFR by `tool` (dig or kdig), presentation lines. */
async function transfer(tool: 'dig' | 'kdig'): Promise<string[]> {
  const opts = tool === 'dig' ? ['+nocmd', '+nostats', '+nocomments'] : ['+noall', '+answer'];
  const { stdout } = await run(tool, ['-p', String(dnsPort), '@127.0.0.1', ZONE, 'AXFR', ...opts], { maxBuffer: 1 << 28 });
  return stdout.split('\n').filter((l) => l.trim() && !l.startsWith(';')).map((l) => l.trim().split(/\s+/).join(' '));
}

describe('a big zone in the DNS thread', () => {
  it('AXFR streams every record of one version of the zone, while it changes, to dig and kdig', async () => {
    let writing = true;
    let written = 0;
    const writes = (async () => {
      while (writing) await api('POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: `w${written++}.${ZONE}`, content: '192.0.2.1', ttl: 300 });
    })();
    try {
      for (const tool of ['dig', 'kdig'] as const) {
        const rrs = await transfer(tool);
        const soas = rrs.filter((l) => / SOA /.test(l));
        expect(soas, `${tool}: ${rrs.slice(0, 3).join('\n')}`).toHaveLength(2);
        expect(rrs[0]).toBe(soas[0]);
        expect(rrs.at(-1)).toBe(soas[1]);
        expect(soas[0]).toBe(soas[1]); // one serial: one version
        const hosts = rrs.filter((l) => l.startsWith('h'));
        expect(hosts).toHaveLength(RECORDS);
        expect(new Set(hosts).size).toBe(RECORDS);
        expect(hosts).toContain(`h${RECORDS - 1}.${ZONE}. 300 IN A ${ip(RECORDS - 1)}`);
        const serial = Number(soas[0]!.split(' ')[6]);
        expect(serial).toBeGreaterThan(0);
      }
      expect(written).toBeGreaterThan(0);
    } finally {
      writing = false;
      await writes;
    }
  }, 180_000);

  it('/readyz is not ready from a thread crash until the new thread holds the zone again, then ready', async () => {
    const ready = async () => {
      const res = await fetch(`${admin}/readyz`);
      return { status: res.status, body: await res.text() };
    };
    expect((await ready()).status).toBe(200);
    const seen: { status: number; body: string }[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        seen.push(await ready());
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await dig(dnsPort, CRASH, 'A', { extra: ['+tries=1', '+time=1'] }).catch(() => undefined);
    await until('/readyz not ready', () => seen.some((s) => s.status === 503));
    await until('/readyz ready again', () => seen.at(-1)?.status === 200 && seen.some((s) => s.status === 503));
    polling = false;
    await poll;
    // The moment it is ready, the thread holds the zone: the first and the last record answer.
    expect(await address(`h0.${ZONE}`)).toEqual([ip(0)]);
    expect(await address(`h${RECORDS - 1}.${ZONE}`)).toEqual([ip(RECORDS - 1)]);
    const firstDown = seen.findIndex((s) => s.status === 503);
    const backUp = seen.findIndex((s, i) => i > firstDown && s.status === 200);
    expect(seen.slice(firstDown, backUp).every((s) => s.status === 503)).toBe(true);
    expect(seen.slice(backUp).every((s) => s.status === 200)).toBe(true);
    expect(seen.slice(firstDown, backUp).map((s) => s.body).join('\n')).toMatch(/DNS thread (ended|restarted)/);
    // Ready again only once the thread reported holding every name of the zone (its own count).
    const back = out().split('\n').find((l) => l.includes('DNS thread answering again'));
    expect(JSON.parse(back!).names).toBeGreaterThanOrEqual(RECORDS);
    expect(out().indexOf('DNS thread answering again')).toBeGreaterThan(out().indexOf('DNS thread ended; starting it again'));
    const metrics = await (await fetch(`${admin}/metrics`)).text();
    expect(metrics).toMatch(/^stratus_dns_thread_restarts_total 1$/m);
  }, 180_000);
});
