/**
 * `stratus serve` as an operator runs it (the compiled CLI in a child process; run `npm run build` first):
 * without a terminal every stdout line is JSON, the startup lines included, and generated credentials are not
 * printed (the line names the file that holds them); UDP worker processes log and count their queries too
 * (their counts reach the main process's /metrics). `--log-format pretty` prints the startup lines as text and
 * access lines in the pretty form.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../faults/spawn.js';
import { waitUntil } from '../faults/load.js';

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const done = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await done;
    }
  }
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function serve(flags: string[]): Promise<{ out: () => string; dataDir: string }> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-logfmt-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0', '--admin', '127.0.0.1:0', '--edge', '127.0.0.1:0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  await waitUntil(() => child.exitCode !== null || /admin listening on/.test(out), 60_000, 'stratus to start');
  if (child.exitCode !== null) throw new Error(`stratus exited:\n${out}`);
  return { out: () => out, dataDir };
}

function udpQuery(port: number, id: number): Promise<void> {
  // example-less query for "x.invalid A": REFUSED, answered by whichever process reads it.
  const msg = Buffer.from(`${id.toString(16).padStart(4, '0')}01000001000000000000017807696e76616c69640000010001`, 'hex');
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const t = setTimeout(() => { s.close(); resolve(); }, 2000);
    s.on('message', () => { clearTimeout(t); s.close(); resolve(); });
    s.send(msg, port, '127.0.0.1');
  });
}

describe('log format of stratus serve', () => {
  it('writes JSON lines without a terminal, startup lines included, and keeps generated secrets out of them', async () => {
    const { out, dataDir } = await serve(['--dns-workers', '2']);
    await waitUntil(() => /generated S3 credentials/.test(out()), 10_000, 'the credentials notices');
    const lines = out().split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const v4 = parsed.find((l) => l.listener === 'v4' && l.component === 'stratus')!;
    expect(v4.msg).toMatch(/^v4 API listening on http:\/\/127\.0\.0\.1:\d+\/client\/v4 /);
    const admin = String(parsed.find((l) => l.listener === 'admin')!.url);
    const dnsPort = Number(parsed.find((l) => l.listener === 'dns' && l.component === 'stratus')!.port);
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as { key: string; api_token: string };
    const s3 = JSON.parse(fs.readFileSync(path.join(dataDir, 's3-credentials.json'), 'utf8')) as Record<string, string>;
    const notice = parsed.find((l) => String(l.msg).startsWith('generated admin credentials'))!;
    expect(notice.file).toBe(path.join(dataDir, 'credentials.json'));
    expect(Object.keys(s3).some((k) => /secret/i.test(k))).toBe(true);
    for (const secret of [creds.key, creds.api_token, ...Object.entries(s3).filter(([k]) => /secret/i.test(k)).map(([, v]) => v)]) expect(out()).not.toContain(secret);

    // Queries answered by the DNS thread are logged (JSON) and counted in the main thread's metrics.
    const before = out().length;
    for (let i = 0; i < 40; i++) await udpQuery(dnsPort, i + 1);
    const refusedA = async () => {
      const text = await (await fetch(`${admin}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('stratus_dns_queries_total{transport="udp",qtype="A",rcode="REFUSED"}'));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    await waitUntil(async () => (await refusedA()) >= 40, 30_000, 'the DNS thread\'s counts in /metrics');
    const dnsLines = out().slice(before).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.listener === 'dns' && l.component === 'access');
    expect(dnsLines.length).toBeGreaterThanOrEqual(40);
    expect(dnsLines.some((l) => l.thread === 'dns'), 'lines written by the DNS thread').toBe(true);
    expect(dnsLines[0]).toMatchObject({ method: 'QUERY', route: 'A', status: 'REFUSED', transport: 'udp', name: 'x.invalid' });
  }, 120_000);

  it('writes text with --log-format pretty: plain startup lines and pretty access lines', async () => {
    const { out } = await serve(['--log-format', 'pretty', '--auth-email', 'pretty@example.com', '--auth-key', 'a'.repeat(37)]);
    expect(out()).toMatch(/^stratus: v4 API listening on http:\/\/127\.0\.0\.1:\d+\/client\/v4 /m);
    expect(out()).toMatch(/^stratus: generated S3 credentials/m);
    const api = /v4 API listening on (http[^\s"]+)/.exec(out())![1]!;
    await fetch(`${api}/zones`, { headers: { 'X-Auth-Email': 'pretty@example.com', 'X-Auth-Key': 'a'.repeat(37) } });
    await waitUntil(() => /\[access v4\] GET \/client\/v4\/zones 200 /.test(out()), 10_000, 'a pretty access line');
    const line = out().split('\n').find((l) => l.includes('[access v4] GET /client/v4/zones 200'))!;
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  \[access v4\] GET \/client\/v4\/zones 200 .*requestId=[0-9a-f-]{36}/);
    expect(line).not.toContain('a'.repeat(37));
  }, 120_000);
});
