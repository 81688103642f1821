/**
 * Two Stratus nodes on one database: a change made through node A's API is served by node B's DNS server
 * (which learns of it by polling zone serials, not through A's in-process change feed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { dig } from './dig.js';

const ZONE = 'shared-db.example';
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestServer({ dataDir: a.dataDir });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

async function eventually(port: number, name: string, type: string, want: string[], ms = 10_000): Promise<string[]> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await dig(port, name, type);
    if (JSON.stringify(r.answer) === JSON.stringify(want) || Date.now() > end) return r.answer;
    await new Promise((res) => setTimeout(res, 200));
  }
}

describe('a second node on the same database', () => {
  it('serves zones and records created on the first node', async () => {
    const zoneId = await createZone(a, ZONE);
    const rec = await a.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.5' } as never);
    const want = [`www.${ZONE}. 300 IN A 192.0.2.5`];
    expect((await dig(a.dnsPort!, `www.${ZONE}`, 'A')).answer).toEqual(want);
    expect(await eventually(b.dnsPort!, `www.${ZONE}`, 'A', want)).toEqual(want);
    await a.sdk().dns.records.delete(rec.id, { zone_id: zoneId });
    expect(await eventually(b.dnsPort!, `www.${ZONE}`, 'A', [])).toEqual([]);
    expect((await dig(b.dnsPort!, `www.${ZONE}`, 'A')).status).toBe('NXDOMAIN');
  });
});
