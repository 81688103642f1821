/**
 * Two nodes on one PostgreSQL database as secondaries of a Knot primary (TSIG): node 1 (in process) and node 2
 * (the compiled `stratus serve`, another process, with its DNS thread). The zone is pulled once (one AXFR in
 * Knot's log: the pull lease), both nodes serve the copy, and a change on Knot NOTIFYed to node 2 (taken by its
 * DNS thread) reaches both nodes by IXFR. After node 2 restarts, an IXFR of a zone of its own from a serial it
 * served before is still answered incrementally (the kept journal, seeded into its DNS thread).
 */
import { randomBytes } from 'node:crypto';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_EMAIL, TEST_KEY, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { projectBuild, startCompiled, type CompiledBuild, type CompiledServer } from '../helpers/compiled-server.js';
import { dig } from '../dns-server/dig.js';
import { freePort } from '../dns-server/ports.js';
import { knotConfigHead } from '../dns-server/knot.js';
import { untilDefined } from '../helpers/until.js';

const run = promisify(execFile);
const ZONE = 'pg-secondary.example';
const SECRET = Buffer.from('pg-secondary-secret-0123456789abcdef').toString('base64');
const SECRETS_KEY = randomBytes(32).toString('base64');
let url: string;
let drop: () => Promise<void>;
let n1: TestServer;
let build: CompiledBuild;
let n2: CompiledServer;
let n2Dir: string;
let dir: string;
let knot: ChildProcess | undefined;
let knotPort: number;
let knotLog = '';

/** Polls `fn` until it gives a value (test/helpers/until.ts). */
const until = <T>(what: string, fn: () => Promise<T | undefined>, ms = 40_000): Promise<T> =>
  untilDefined(what, fn, { ms, pollMs: 200, detail: () => `--- knot\n${knotLog}\n--- node 2\n${n2?.output().slice(-4000)}` });
const serialOn = async (port: number) => Number((await dig(port, ZONE, 'SOA')).answer[0]?.split(' ')[6]);
const startNode2 = () => startCompiled(build, { dataDir: n2Dir, email: TEST_EMAIL, key: TEST_KEY, flags: ['--database-url', url, '--s3', 'off', '--secrets-key', SECRETS_KEY, '--transfer-peer-allow', '127.0.0.0/8'] });

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('secondary'));
  build = projectBuild();
  knotPort = await freePort();
  n1 = await startTestServer({ flags: { 'database-url': url, s3: 'off', 'secrets-key': SECRETS_KEY, 'transfer-peer-allow': '127.0.0.0/8' } });
  n2Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-secondary-n2-'));
  n2 = await startNode2();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-pg-knot-'));
  fs.mkdirSync(path.join(dir, 'zones'));
  fs.mkdirSync(path.join(dir, 'db'));
  fs.writeFileSync(path.join(dir, 'zones', `${ZONE}.zone`), `$ORIGIN ${ZONE}.\n$TTL 300\n@ SOA ns1 hostmaster 100 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.53\nwww A 192.0.2.80\n`);
  fs.writeFileSync(path.join(dir, 'knot.conf'), `${knotConfigHead(dir, knotPort)}key:
  - id: xfer-key
    algorithm: hmac-sha256
    secret: ${SECRET}
remote:
  - id: node2
    address: 127.0.0.1@${n2.dnsPort}
    key: xfer-key
acl:
  - id: to_stratus
    address: 127.0.0.1
    key: xfer-key
    action: transfer
zone:
  - domain: ${ZONE}
    storage: "${dir}/zones"
    file: "%s.zone"
    zonefile-sync: -1
    notify: node2
    acl: to_stratus
`);
  knot = spawn('knotd', ['-c', path.join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  knot.stderr!.on('data', (d: Buffer) => { knotLog += d.toString(); });
  await until('Knot serving', async () => (await serialOn(knotPort) === 100 ? true : undefined));
}, 180_000);

afterAll(async () => {
  if (knot && knot.exitCode === null) { const k = knot; const exited = new Promise((r) => k.once('exit', r)); k.kill('SIGTERM'); await exited; }
  await n2?.stop();
  await n1?.stop();
  for (const d of [n2Dir, dir]) if (d) fs.rmSync(d, { recursive: true, force: true });
  await drop?.();
});

describe('a secondary zone on two nodes sharing PostgreSQL', () => {
  it('is pulled by one node at a time, served by both, and follows NOTIFY to node 2 by IXFR', async () => {
    const sdk = n1.sdk();
    const account = await accountId(n1);
    const zt = sdk.dns.zoneTransfers;
    const key = await zt.tsigs.create({ account_id: account, name: 'xfer-key.', algo: 'hmac-sha256.', secret: SECRET });
    const peer = await zt.peers.create({ account_id: account, name: 'knot' });
    await zt.peers.update(peer.id, { account_id: account, name: 'knot', ip: '127.0.0.1', port: knotPort, ixfr_enable: true, tsig_id: key.id });
    const zoneId = (await sdk.zones.create({ account: { id: account }, name: ZONE, type: 'secondary' })).id;
    await zt.incoming.create({ zone_id: zoneId, name: ZONE, peers: [peer.id], auto_refresh_seconds: 3600 });
    for (const port of [n1.dnsPort!, n2.dnsPort]) {
      await until(`the copy on ${port}`, async () => ((await dig(port, `www.${ZONE}`, 'A')).answer.length ? true : undefined));
      expect(await serialOn(port)).toBe(100);
    }
    expect(knotLog.match(/AXFR, outgoing, remote [^,]+, started/g)).toHaveLength(1);

    await run('knotc', ['-s', path.join(dir, 'knot.sock'), 'zone-begin', ZONE]);
    await run('knotc', ['-s', path.join(dir, 'knot.sock'), 'zone-set', ZONE, 'later', '300', 'A', '192.0.2.81']);
    await run('knotc', ['-s', path.join(dir, 'knot.sock'), 'zone-commit', ZONE]);
    for (const port of [n2.dnsPort, n1.dnsPort!]) {
      await until(`the change on ${port}`, async () => ((await dig(port, `later.${ZONE}`, 'A')).answer.length ? true : undefined));
      expect(await serialOn(port)).toBe(101);
    }
    expect(knotLog).toMatch(/IXFR, outgoing/);
    expect(knotLog.match(/AXFR, outgoing, remote [^,]+, started/g)).toHaveLength(1);
    // The compiled node's DNS thread answers IXFR out of the copy from its journal (the primary's serials).
    const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(n2.dnsPort), '+time=5', '+retry=0', ZONE, 'IXFR=100'], { timeout: 20_000 });
    const lines = stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).map((l) => l.trim().split(/\s+/));
    expect(lines.filter((f) => f[3] === 'SOA').map((f) => Number(f[6]))).toEqual([101, 100, 101, 101]);
    expect(lines.map((f) => f.join(' '))).toContain(`later.${ZONE}. 300 IN A 192.0.2.81`);
  });

  it('answers IXFR incrementally from node 2 after it restarts (the journal its DNS thread kept)', async () => {
    const sdk = n1.sdk();
    const account = await accountId(n1);
    const name = 'pg-journal.example';
    const zoneId = (await sdk.zones.create({ account: { id: account }, name })).id;
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.90' } as never);
    const serialOf = async (port: number) => Number((await dig(port, name, 'SOA')).answer[0]?.split(' ')[6]);
    const from = await until('node 2 has the zone', async () => {
      const s = await serialOf(n2.dnsPort);
      return s > 0 && s === await serialOf(n1.dnsPort!) ? s : undefined;
    });
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'one', content: '192.0.2.91' } as never);
    await sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'two', content: '"two"' } as never);
    const now = await serialOf(n1.dnsPort!);
    await until('node 2 follows', async () => (await serialOf(n2.dnsPort) === now ? true : undefined));
    await n2.stop();
    n2 = await startNode2();
    const ixfr = await until('an IXFR from node 2', async () => {
      const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(n2.dnsPort), '+time=3', '+retry=0', name, `IXFR=${from}`], { timeout: 15_000 });
      return /SOA/.test(stdout) ? stdout : undefined;
    });
    const lines = ixfr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).map((l) => l.trim().split(/\s+/).join(' '));
    expect(lines.filter((l) => / SOA /.test(l))).toHaveLength(4);
    expect(lines).toContain(`one.${name}. 300 IN A 192.0.2.91`);
    expect(lines).not.toContain(`www.${name}. 300 IN A 192.0.2.90`);
  });
});
