/**
 * A DS record belongs at the delegation point (RFC 4034 §5): the API accepts it beside the NS records of a
 * delegated name (in either order), and the parent answers DS queries for that name itself (authoritative,
 * not a referral), while every other type at or below the cut is referred.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { dig } from './dig.js';

const ZONE = 'ds-parent.example';
const DIGEST = '1F987CC6583E92DF0890718C42A0B4EF1DE0C2C22E5C5E7E45B2E1B1A2D3C4F5';

let server: TestServer;
let zoneId: string;

beforeAll(async () => {
  server = await startTestServer();
  zoneId = await createZone(server, ZONE);
});
afterAll(async () => { await server?.stop(); });

describe('DS at a delegation', () => {
  it('is accepted after NS and before NS, and served by the parent', async () => {
    const sdk = server.sdk();
    await sdk.dns.records.create({ zone_id: zoneId, type: 'NS', name: `sub.${ZONE}`, content: 'ns1.child-host.net', ttl: 3600 } as never);
    const ds = await sdk.dns.records.create({ zone_id: zoneId, type: 'DS', name: `sub.${ZONE}`, data: { key_tag: 2371, algorithm: 13, digest_type: 2, digest: DIGEST }, ttl: 3600 } as never);
    expect(ds.type).toBe('DS');
    await sdk.dns.records.create({ zone_id: zoneId, type: 'DS', name: `other.${ZONE}`, data: { key_tag: 1, algorithm: 13, digest_type: 2, digest: DIGEST }, ttl: 3600 } as never);
    await sdk.dns.records.create({ zone_id: zoneId, type: 'NS', name: `other.${ZONE}`, content: 'ns1.child-host.net', ttl: 3600 } as never);

    const answer = await dig(server.dnsPort!, `sub.${ZONE}`, 'DS');
    expect(answer.status).toBe('NOERROR');
    expect(answer.flags).toContain('aa');
    expect(answer.answer.map((l) => l.replace(/ (?=[0-9A-F]+$)/g, ''))).toEqual([`sub.${ZONE}. 3600 IN DS 2371 13 2 ${DIGEST}`]);

    const referral = await dig(server.dnsPort!, `www.sub.${ZONE}`, 'A');
    expect(referral.flags).not.toContain('aa');
    expect(referral.authority).toEqual([`sub.${ZONE}. 3600 IN NS ns1.child-host.net.`]);
    const below = await dig(server.dnsPort!, `www.sub.${ZONE}`, 'DS');
    expect(below.flags).not.toContain('aa');
    expect(below.answer).toEqual([]);
  });

  it('other types still cannot join the NS records of a delegation (81056)', async () => {
    const sdk = server.sdk();
    await expect(sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: `sub.${ZONE}`, content: '"x"' } as never))
      .rejects.toMatchObject({ status: 400, errors: [expect.objectContaining({ code: 81056 })] });
  });
});
