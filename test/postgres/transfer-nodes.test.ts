/**
 * Two nodes on one PostgreSQL database answer the same zone transfers: outgoing settings, a peer and its TSIG key
 * written through node 1's API reach node 2 (the compiled `stratus serve`, another process, with its DNS thread)
 * through the polled secondary DNS serial; node 2 then serves the signed AXFR, refuses unsigned and wrongly
 * signed requests, and answers IXFR from the changes it took from the change log.
 */
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_EMAIL, TEST_KEY, type TestServer } from '../helpers/server.js';
import { accountId, createZone } from '../helpers/api.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { projectBuild, startCompiled, type CompiledBuild, type CompiledServer } from '../helpers/compiled-server.js';
import { dig } from '../dns-server/dig.js';
import { untilDefined } from '../helpers/until.js';

const run = promisify(execFile);
const ZONE = 'pg-transfers.example';
const SECRET = Buffer.from('two-nodes-transfer-secret-0123456789').toString('base64');
const SECRETS_KEY = randomBytes(32).toString('base64');
let url: string;
let drop: () => Promise<void>;
let n1: TestServer;
let build: CompiledBuild;
let n2: CompiledServer;
let dataDir: string;
let zoneId: string;

const records = (raw: string) => raw.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).map((l) => l.trim().split(/\s+/).join(' '));
/** kdig's output (stdout and stderr; it exits non-zero for a refused transfer). */
const xfr = (port: number, type: string, key?: string): Promise<string> =>
  run('kdig', ['@127.0.0.1', '-p', String(port), '+time=3', '+retry=0', ...(key ? ['-y', `hmac-sha256:xfer-key:${key}`] : []), ZONE, type], { timeout: 15_000 })
    .then((r) => r.stdout + r.stderr, (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`);
const serialOn = async (port: number) => Number((await dig(port, ZONE, 'SOA')).answer[0]?.split(' ')[6]);

/** Polls `fn` until it gives a value (test/helpers/until.ts). */
const until = <T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> =>
  untilDefined(what, fn, { ms, pollMs: 100, detail: () => `${n2?.output().slice(-4000)}` });

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('transfers'));
  build = projectBuild();
  n1 = await startTestServer({ flags: { 'database-url': url, s3: 'off', 'secrets-key': SECRETS_KEY, 'transfer-peer-allow': '127.0.0.0/8' } });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-transfer-n2-'));
  n2 = await startCompiled(build, { dataDir, email: TEST_EMAIL, key: TEST_KEY, flags: ['--database-url', url, '--s3', 'off', '--secrets-key', SECRETS_KEY, '--ixfr-history', '10', '--transfer-peer-allow', '127.0.0.0/8'] });
  zoneId = await createZone(n1, ZONE);
  await n1.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.80' } as never);
}, 180_000);

afterAll(async () => {
  await n2?.stop();
  await n1?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  await drop?.();
});

describe('transfers from two nodes on PostgreSQL', () => {
  it('node 2 enforces the outgoing settings written on node 1 and answers IXFR from the change log', async () => {
    const sdk = n1.sdk();
    const account = await accountId(n1);
    const zt = sdk.dns.zoneTransfers;
    const key = await zt.tsigs.create({ account_id: account, name: 'xfer-key.', algo: 'hmac-sha256.', secret: SECRET });
    const peer = await zt.peers.create({ account_id: account, name: 'secondary' });
    await zt.peers.update(peer.id, { account_id: account, name: 'secondary', ip: '127.0.0.1', tsig_id: key.id });
    await zt.outgoing.create({ zone_id: zoneId, name: `${ZONE}.`, peers: [peer.id] });
    await zt.outgoing.enable({ zone_id: zoneId });

    for (const port of [n1.dnsPort!, n2.dnsPort]) {
      // Node 2 learns the settings by polling: unsigned transfers stop being served, signed ones are.
      await until(`unsigned AXFR refused on ${port}`, async () => (/REFUSED|failed/i.test(await xfr(port, 'AXFR')) ? true : undefined));
      const signed = await until(`signed AXFR on ${port}`, async () => {
        const raw = await xfr(port, 'AXFR', SECRET);
        return raw.includes('192.0.2.80') ? raw : undefined;
      });
      expect(signed).toMatch(/xfer-key\.\s+0\s+ANY\s+TSIG\s+hmac-sha256\./);
      expect(signed).not.toMatch(/WARNING|failed/i);
      const wrong = await xfr(port, 'AXFR', Buffer.from('wrong').toString('base64'));
      expect(wrong).toMatch(/BADSIG/);
      expect(wrong).not.toContain('192.0.2.80');
    }

    const before = await serialOn(n2.dnsPort);
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'new', content: '192.0.2.81' } as never);
    const after = await until('node 2 takes the change', async () => { const s = await serialOn(n2.dnsPort); return s !== before ? s : undefined; });
    const diff = records(await xfr(n2.dnsPort, `IXFR=${before}`, SECRET)).filter((l) => !/ TSIG /.test(l));
    expect(diff).toHaveLength(5);
    expect(diff[0]).toMatch(new RegExp(` SOA \\S+ \\S+ ${after} `));
    expect(diff[1]).toMatch(new RegExp(` SOA \\S+ \\S+ ${before} `));
    expect(diff[2]).toMatch(new RegExp(` SOA \\S+ \\S+ ${after} `));
    expect(diff[3]).toBe(`new.${ZONE}. 300 IN A 192.0.2.81`);
    expect(diff[4]).toMatch(new RegExp(` SOA \\S+ \\S+ ${after} `));
  });
});
