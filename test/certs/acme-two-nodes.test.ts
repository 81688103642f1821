/**
 * ACME (pebble) with two nodes on one PostgreSQL database: the CA is told to check a DNS-01 challenge only
 * once every live node serves it (a third, phantom node that beats but never serves holds the order, and the
 * order fails with a clear reason after the wait); a node stopped in the middle of an order ends it before its
 * stop resolves (challenge records removed, lease released, nothing recorded afterwards); once every live node
 * serves the challenge, the certificate is issued and both nodes serve it (openssl against pebble's root). The
 * challenge TXT is in the zone's AXFR while it is served, and gone from it after.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { createZone } from '../helpers/api.js';
import { eventually } from '../edge/harness.js';
import { sClient } from './certs-helpers.js';
import { preparePebble, type Pebble } from './pebble.js';
import { freePort } from '../dns-server/ports.js';

const ZONE = 'acme-two-nodes.test';
const SECRETS = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const PHANTOM = 'phantom-node-that-serves-nothing';
let db: { url: string; drop(): Promise<void> };
let sql: pg.Client;
let pebble: Pebble;
let dir: string;
const nodes: Array<{ server: TestServer; lines: string[]; stopped: boolean }> = [];
let beat: NodeJS.Timeout | undefined;
let zoneId: string;

async function startNode(dnsPort: number): Promise<{ server: TestServer; lines: string[]; stopped: boolean }> {
  const { logger, lines } = captureLogger('info');
  const certificates = { acmeDirectory: pebble.directory, acmeCaFile: pebble.caFile, acmeEmail: 'ops@example.com', acmeEab: undefined, renewDays: 30,
    tickMs: 200, firstRetryMs: 300, maxRetryMs: 1000, nodeWaitMs: 25_000 };
  const server = await startTestServer({ logger, flags: { edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'database-url': db.url, 'secrets-key': SECRETS,
    dns: `127.0.0.1:${dnsPort}`, 'acme-directory': pebble.directory, 'acme-ca-file': pebble.caFile }, config: { certificates } });
  const node = { server, lines, stopped: false };
  nodes.push(node);
  return node;
}

/** dig's answer (asynchronous: the servers answer on this process's event loop). */
function dig(port: number, name: string, type = 'TXT'): Promise<string> {
  return new Promise((resolve) => {
    execFile('dig', [`@127.0.0.1`, '-p', String(port), type, name, ...(type === 'AXFR' ? [] : ['+short']), '+tries=1', '+time=2'], { encoding: 'utf8' }, (err, stdout, stderr) => resolve(`${err ? 'failed ' : ''}${stdout}${stderr}`));
  });
}

async function q<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await sql.query(text, values)).rows as T[];
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-acme-nodes-'));
  db = await freshPostgresUrl('acme_two_nodes');
  pebble = await preparePebble(dir);
  const first = await startNode(await freePort());
  pebble.start(first.server.dnsPort!);
  // The CA listens before any order is made: an order that found it not yet up would log a failure of its own.
  await eventually(() => new Promise<void>((resolve, reject) => {
    const s = net.connect(pebble.acmePort, '127.0.0.1', () => { s.destroy(); resolve(); });
    s.once('error', reject);
  }), 30_000);
  await startNode(await freePort());
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  // A live node that never serves the zone: its heartbeat is kept fresh, it records no serial.
  const keep = () => q('INSERT INTO dns_nodes (node_id, heartbeat_ms) VALUES ($1, $2) ON CONFLICT (node_id) DO UPDATE SET heartbeat_ms = $2', [PHANTOM, Date.now()]);
  await keep();
  beat = setInterval(() => void keep().catch(() => {}), 300);
}, 120_000);

afterAll(async () => {
  if (beat) clearInterval(beat);
  for (const n of nodes) if (!n.stopped) await n.server.stop();
  await pebble?.stop();
  await sql?.end();
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('ACME challenges confirmed on every live node (two nodes, PostgreSQL, pebble)', () => {
  it('holds the order while a live node does not serve the challenge; both real nodes answer it', async () => {
    zoneId = await createZone(nodes[0]!.server, ZONE);
    const challenge = await eventually(async () => {
      const rows = await q('SELECT name, content FROM acme_challenges WHERE zone_id = $1', [zoneId]);
      expect(rows.length).toBeGreaterThan(0);
      return rows[0];
    }, 60_000);
    for (const n of nodes) {
      await eventually(async () => expect(await dig(n.server.dnsPort!, challenge.name), `node ${nodes.indexOf(n)} ${n.server.dnsPort}`).toContain(challenge.content), 15_000);
    }
    const recorded = await eventually(async () => {
      const rows = await q('SELECT node_id, serial FROM dns_node_zone_serials WHERE zone_id = $1', [zoneId]);
      expect(rows).toHaveLength(2);
      return rows;
    }, 15_000);
    expect(recorded.map((r) => r.node_id)).not.toContain(PHANTOM);
    // The zone as transferred carries what its servers answer (a secondary asked by the CA answers the same)
    for (const n of nodes) {
      const axfr = await dig(n.server.dnsPort!, ZONE, 'AXFR');
      expect(axfr).toMatch(new RegExp(`^${challenge.name.replace(/\./g, '\\.')}\\.\\s+60\\s+IN\\s+TXT\\s+"${challenge.content}"`, 'm'));
    }
    const [pack] = await q('SELECT status FROM certificate_packs WHERE zone_id = $1', [zoneId]);
    expect(pack.status).not.toBe('active');
    expect(await q('SELECT id FROM certificates WHERE zone_id = $1', [zoneId])).toEqual([]);
  }, 120_000);

  it('a node stopped mid-order ends the order before its stop resolves, and records nothing after', async () => {
    // The node ordering now: the last to log it (an order that failed before hands the lease on).
    const last = (n: (typeof nodes)[number]) => Math.max(0, ...n.lines.filter((l) => l.includes('ordering certificate') && l.includes(zoneId)).map((l) => JSON.parse(l).time as number));
    const holder = [...nodes].sort((x, y) => last(y) - last(x))[0]!;
    expect(last(holder)).toBeGreaterThan(0);
    await holder.server.stop();
    holder.stopped = true;
    const linesAtStop = holder.lines.length;
    // The order's own end ran before stop() resolved: its challenge record removed, its lease given back.
    const rows = await q('SELECT lease_holder, error, status FROM certificate_packs WHERE zone_id = $1', [zoneId]);
    // A lease still held is the other node's: it took it and logs its order after a database read or two (seen
    // taken before the line under a loaded machine). The lease lasts 120 s, so this wait cannot hide one the
    // stopped node kept.
    if (rows[0].lease_holder !== null) {
      await eventually(async () => expect(nodes.some((n) => n !== holder && n.lines.some((l) => l.includes('ordering certificate')))).toBe(true), 10_000);
    }
    const challenges = await q('SELECT a.id FROM acme_challenges a WHERE a.zone_id = $1 AND NOT EXISTS (SELECT 1 FROM certificate_packs p WHERE p.zone_id = a.zone_id AND p.lease_holder IS NOT NULL)', [zoneId]);
    expect(challenges).toEqual([]);
    expect(rows[0].error ?? '').not.toMatch(/closing|abort/i);
    expect(holder.lines.slice(linesAtStop).filter((l) => l.includes('certificate'))).toEqual([]);
    expect(holder.lines.filter((l) => l.includes('certificate order failed'))).toEqual([]);
  }, 60_000);

  it('the order fails with a clear reason when a live node does not serve the challenge in time', async () => {
    const pack = await eventually(async () => {
      const p = (await nodes.find((n) => !n.stopped)!.server.sdk().ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result[0] as any;
      expect(p?.validation_errors?.[0]?.message ?? '', nodes.map((n) => n.lines.filter((l) => l.includes('"err"')).join('\n')).join('\n---\n'))
        .toMatch(/not served by 1 of 2 live DNS nodes/);
      return p;
    }, 90_000);
    expect(pack.validation_errors[0].message).toContain(PHANTOM);
    expect(pack.validation_errors[0].message).toMatch(/the CA was not asked to validate/);
  }, 120_000);

  it('once every live node serves it, the certificate is issued and both nodes serve it', async () => {
    await startNode(nodes.find((n) => n.stopped)!.server.dnsPort!); // the stopped node's place (pebble may resolve through its port)
    clearInterval(beat);
    beat = undefined;
    await q('DELETE FROM dns_nodes WHERE node_id = $1', [PHANTOM]);
    const live = nodes.filter((n) => !n.stopped);
    await eventually(async () => {
      const p = (await live[0]!.server.sdk().ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result[0] as any;
      expect(p?.status, `${JSON.stringify(p)}\n${pebble.log.join('').slice(-1500)}`).toBe('active');
    }, 120_000);
    const root = await pebble.rootFile();
    for (const n of live) {
      const port = Number(new URL(n.server.running.edgeTlsUrl!).port);
      await eventually(async () => {
        for (const name of [ZONE, `www.${ZONE}`]) {
          const hs = await sClient(port, name, root);
          expect(hs.verified, hs.output).toBe(true);
        }
      }, 15_000);
    }
    expect(await q('SELECT id FROM acme_challenges WHERE zone_id = $1', [zoneId])).toEqual([]);
    for (const n of live) {
      await eventually(async () => {
        const axfr = await dig(n.server.dnsPort!, ZONE, 'AXFR');
        expect(axfr).toContain('SOA');
        expect(axfr).not.toContain('_acme-challenge');
      }, 15_000);
    }
  }, 180_000);
});
