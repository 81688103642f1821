/**
 * The IXFR history survives a restart (dns-server/journal-store.ts): after Stratus stops and starts again on the
 * same data folder, an IXFR from a serial within `--ixfr-history` is answered with the condensed differences as
 * kdig sees them, not the whole zone; a serial older than the history still gets the whole zone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { dig } from './dig.js';

const ZONE = 'ixfr-restart.example';
let server: TestServer;
let dataDir: string;
const serials: number[] = [];

const soaSerial = async () => Number((await dig(server.dnsPort!, ZONE, 'SOA')).answer[0]!.split(' ')[6]);
const records = (raw: string) => raw.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).map((l) => l.trim().split(/\s+/).join(' '));
const ixfr = async (serial: number) => records((await dig(server.dnsPort!, ZONE, `IXFR=${serial}`, { tool: 'kdig' })).raw);
const soa = (serial: number) => expect.stringMatching(new RegExp(`^${ZONE.replace('.', '\\.')}\\. \\d+ IN SOA \\S+ \\S+ ${serial} `));

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-ixfr-restart-'));
  server = await startTestServer({ dataDir, config: { ixfrHistory: 3 } });
  const zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.1' } as never);
  serials.push(await soaSerial()); // 0: older than the history kept below
  const txt = await sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'txt', content: '"v1"' } as never);
  serials.push(await soaSerial()); // 1
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'one', content: '192.0.2.11' } as never);
  serials.push(await soaSerial()); // 2
  await sdk.dns.records.update(txt.id, { zone_id: zoneId, type: 'TXT', name: `txt.${ZONE}`, content: '"v2"' } as never);
  serials.push(await soaSerial()); // 3
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'two', content: '192.0.2.12' } as never);
  serials.push(await soaSerial()); // 4: current
  await server.stop();
  server = await startTestServer({ dataDir, config: { ixfrHistory: 3 } });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('IXFR after a restart', () => {
  it('answers the condensed difference from a serial within the history', async () => {
    expect(await soaSerial()).toBe(serials[4]);
    expect(await ixfr(serials[1]!)).toEqual([
      soa(serials[4]!), soa(serials[1]!),
      `txt.${ZONE}. 300 IN TXT "v1"`,
      soa(serials[4]!),
      `one.${ZONE}. 300 IN A 192.0.2.11`, `txt.${ZONE}. 300 IN TXT "v2"`, `two.${ZONE}. 300 IN A 192.0.2.12`,
      soa(serials[4]!),
    ].map((x) => x));
  });

  it('answers a serial older than the history with the whole zone', async () => {
    const r = await ixfr(serials[0]!);
    expect(r.filter((l) => / SOA /.test(l))).toHaveLength(2);
    expect(r).toContain(`www.${ZONE}. 300 IN A 192.0.2.1`);
  });
});
