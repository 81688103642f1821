/**
 * A stock Knot DNS (Debian `knot`) as a secondary of Stratus: it transfers the zone (AXFR), answers like
 * Stratus, and after an API change plus Stratus's NOTIFY it serves the change.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { dig, type DigResult } from './dig.js';
import { freePort } from './ports.js';
import { knotConfigHead } from './knot.js';
import { untilDefined } from '../helpers/until.js';

const ZONE = 'knot-secondary.example';
let server: TestServer;
let knot: ChildProcess | undefined;
let knotPort: number;
let dir: string;
let zoneId: string;
let knotLog = '';

/** Polls `fn` until it gives a value (test/helpers/until.ts). */
const until = <T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> =>
  untilDefined(what, fn, { ms, pollMs: 200, detail: () => `${knotLog}` });

const serialOf = (r: DigResult) => (r.answer[0] ? Number(r.answer[0].split(' ')[6]) : undefined);

beforeAll(async () => {
  knotPort = await freePort();
  server = await startTestServer({ config: { notify: [`127.0.0.1:${knotPort}`] } });
  zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  const records: Record<string, unknown>[] = [
    { type: 'A', name: '@', content: '192.0.2.1' },
    { type: 'A', name: 'www', content: '192.0.2.2', ttl: 600 },
    { type: 'AAAA', name: 'www', content: '2001:db8::2' },
    { type: 'CNAME', name: 'alias', content: `www.${ZONE}` },
    { type: 'MX', name: '@', content: `mail.${ZONE}`, priority: 10 },
    { type: 'A', name: 'mail', content: '192.0.2.3' },
    { type: 'TXT', name: '@', content: '"v=spf1 -all"' },
    { type: 'A', name: '*.wild', content: '192.0.2.4' },
    { type: 'A', name: 'edge', content: '198.51.100.4', proxied: true },
    { type: 'SRV', name: '_sip._tcp', data: { priority: 1, weight: 2, port: 5060, target: `mail.${ZONE}` } },
    { type: 'CAA', name: '@', data: { flags: 0, tag: 'issue', value: 'ca.example' } },
    { type: 'HTTPS', name: 'svc', data: { priority: 1, target: '.', value: 'alpn="h2" ipv4hint=192.0.2.9' } },
    { type: 'TXT', name: 'a.b.deep', content: 'deep' },
  ];
  for (const r of records) await sdk.dns.records.create({ zone_id: zoneId, ...r } as never);

  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-knot-'));
  fs.writeFileSync(path.join(dir, 'knot.conf'), `${knotConfigHead(dir, knotPort)}remote:
  - id: stratus
    address: 127.0.0.1@${server.dnsPort}
acl:
  - id: from_stratus
    address: 127.0.0.1
    action: notify
template:
  - id: default
    storage: "${dir}/zones"
zone:
  - domain: ${ZONE}
    master: stratus
    acl: from_stratus
`);
  knot = spawn('knotd', ['-c', path.join(dir, 'knot.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  knot.stderr!.on('data', (d: Buffer) => { knotLog += d.toString(); });
}, 60_000);

afterAll(async () => {
  if (knot && knot.exitCode === null) {
    knot.kill('SIGTERM');
    await new Promise((r) => knot!.once('exit', r));
  }
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const QUERIES: Array<[string, string]> = [
  [ZONE, 'SOA'], [ZONE, 'NS'], [ZONE, 'A'], [ZONE, 'MX'], [ZONE, 'TXT'], [ZONE, 'CAA'],
  [`www.${ZONE}`, 'A'], [`www.${ZONE}`, 'AAAA'], [`alias.${ZONE}`, 'A'], [`alias.${ZONE}`, 'CNAME'],
  [`x.wild.${ZONE}`, 'A'], [`y.x.wild.${ZONE}`, 'A'], [`edge.${ZONE}`, 'A'], [`edge.${ZONE}`, 'AAAA'],
  [`_sip._tcp.${ZONE}`, 'SRV'], [`svc.${ZONE}`, 'HTTPS'], [`deep.${ZONE}`, 'A'], [`a.b.deep.${ZONE}`, 'TXT'],
  [`missing.${ZONE}`, 'A'], [`www.${ZONE}`, 'TXT'],
];

describe('Knot as a secondary of Stratus', () => {
  it('transfers the zone and answers identically', async () => {
    const primary = serialOf(await dig(server.dnsPort!, ZONE, 'SOA'))!;
    await until('the transfer', async () => (serialOf(await dig(knotPort, ZONE, 'SOA')) === primary ? true : undefined));
    for (const [name, type] of QUERIES) {
      const a = await dig(server.dnsPort!, name, type);
      const b = await dig(knotPort, name, type);
      expect({ q: `${name} ${type}`, status: b.status, answer: [...b.answer].sort(), authority: b.authority })
        .toEqual({ q: `${name} ${type}`, status: a.status, answer: [...a.answer].sort(), authority: a.authority });
    }
  });

  it('serves an API change after NOTIFY', async () => {
    const sdk = server.sdk();
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'later', content: '203.0.113.77' } as never);
    const found = await until('the change on Knot', async () => {
      const r = await dig(knotPort, `later.${ZONE}`, 'A');
      return r.answer.length ? r.answer : undefined;
    });
    expect(found).toEqual([`later.${ZONE}. 300 IN A 203.0.113.77`]);
    expect(knotLog).toMatch(/notify|NOTIFY/);
  });
});
