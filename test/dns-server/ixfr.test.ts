/**
 * IXFR (RFC 1995) as kdig and dig see it, with `--ixfr-history 3`: the condensed difference from a recent serial
 * over TCP and over UDP when it fits, the SOA alone over UDP when it does not (and for a current client), and the
 * whole zone for a serial older than the history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { dig } from './dig.js';

const ZONE = 'ixfr-history.example';
let server: TestServer;
let zoneId: string;
const serials: number[] = [];

const soaSerial = async () => Number((await dig(server.dnsPort!, ZONE, 'SOA')).answer[0]!.split(' ')[6]);
/** The records of a transfer as kdig or dig print them (no section headers), whitespace collapsed. */
const records = (raw: string) => raw.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).map((l) => l.trim().split(/\s+/).join(' '));
const ixfr = async (serial: number, extra: string[] = [], tool: 'dig' | 'kdig' = 'kdig') => ({ answer: records((await dig(server.dnsPort!, ZONE, `IXFR=${serial}`, { tool, extra })).raw) });

beforeAll(async () => {
  server = await startTestServer({ config: { ixfrHistory: 3 } });
  zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.1' } as never);
  const txt = await sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'txt', content: '"v1"' } as never);
  serials.push(await soaSerial()); // 0: before the history below
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'one', content: '192.0.2.11' } as never);
  serials.push(await soaSerial()); // 1
  await sdk.dns.records.update(txt.id, { zone_id: zoneId, type: 'TXT', name: `txt.${ZONE}`, content: '"v2"' } as never);
  serials.push(await soaSerial()); // 2
  const www = (await sdk.dns.records.list({ zone_id: zoneId, name: { exact: `www.${ZONE}` } } as never)).result[0]!;
  await sdk.dns.records.delete(www.id, { zone_id: zoneId });
  serials.push(await soaSerial()); // 3
  await sdk.dns.records.update(txt.id, { zone_id: zoneId, type: 'TXT', name: `txt.${ZONE}`, content: '"v3"' } as never);
  serials.push(await soaSerial()); // 4: current
}, 60_000);
afterAll(async () => { await server?.stop(); });

const soa = (serial: number) => expect.stringMatching(new RegExp(`^${ZONE.replace('.', '\\.')}\\. \\d+ IN SOA \\S+ \\S+ ${serial} `));

describe('IXFR', () => {
  it('answers the condensed difference from a serial in the history, over TCP', async () => {
    const r = await ixfr(serials[1]!);
    expect(r.answer).toEqual([
      soa(serials[4]!), soa(serials[1]!),
      `txt.${ZONE}. 300 IN TXT "v1"`, `www.${ZONE}. 300 IN A 192.0.2.1`,
      soa(serials[4]!),
      `txt.${ZONE}. 300 IN TXT "v3"`,
      soa(serials[4]!),
    ]);
  });

  it('answers over UDP when it fits, and with the SOA alone when it does not or the client is current', async () => {
    const small = await ixfr(serials[3]!, ['+notcp']);
    expect(small.answer).toEqual([soa(serials[4]!), soa(serials[3]!), `txt.${ZONE}. 300 IN TXT "v2"`, soa(serials[4]!), `txt.${ZONE}. 300 IN TXT "v3"`, soa(serials[4]!)]);
    const current = await ixfr(serials[4]!, ['+notcp']);
    expect(current.answer).toEqual([soa(serials[4]!)]);
    const sdk = server.sdk();
    await sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'big', content: `"${'x'.repeat(250)}" "${'y'.repeat(250)}"` } as never);
    const big = await ixfr(serials[4]!, ['+notcp', '+noedns', '+ignore'], 'dig');
    expect(big.answer).toEqual([soa(await soaSerial())]);
  });

  it('answers a serial older than the history with the whole zone', async () => {
    const r = await ixfr(serials[0]!);
    const now = await soaSerial();
    expect(r.answer[0]).toEqual(soa(now));
    expect(r.answer[r.answer.length - 1]).toEqual(soa(now));
    expect(r.answer.filter((l) => / SOA /.test(l))).toHaveLength(2);
    expect(r.answer).toContain(`one.${ZONE}. 300 IN A 192.0.2.11`);
    expect(r.answer).toContain(`txt.${ZONE}. 300 IN TXT "v3"`);
  });
});
