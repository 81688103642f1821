/** Every record type through the official SDK: create, get, list, edit (PATCH), update (PUT), delete. */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { recordSamples } from './record-samples.js';
import { PRESIGNED_TYPES, RECORD_TYPES } from '../../src/dns/record.js';

const ZONE = 'types.example';
type Any = any;

describe('every record type through the SDK', () => {
  let server: TestServer;
  let cf: Cloudflare;
  let zoneId: string;
  beforeAll(async () => {
    server = await startTestServer();
    cf = server.sdk();
    zoneId = await createZone(server, ZONE);
    await cf.dns.dnssec.edit({ zone_id: zoneId, dnssec_multi_signer: true }); // DNSKEY records need it (1117)
  });
  afterAll(async () => { await server.stop(); });

  it('covers all types', () => {
    // The pre-signed types (RRSIG, NSEC, NSEC3, NSEC3PARAM, SOA) need a pre-signed zone: test/dns-server/dnssec-presigned.test.ts.
    expect(recordSamples(ZONE).map((s) => s.type).sort()).toEqual(RECORD_TYPES.filter((t) => !PRESIGNED_TYPES.has(t)).sort());
  });

  for (const sample of recordSamples(ZONE)) {
    it(`${sample.type}: create, get, list, edit, update, delete`, async () => {
      const created = await cf.dns.records.create({ zone_id: zoneId, type: sample.type, ttl: 1, ...sample.body } as Any) as Any;
      expect(created).toMatchObject({ type: sample.type, name: sample.name, proxied: false, ttl: 1, comment: null, tags: [], meta: { auto_added: false, managed_by_apps: false, managed_by_tunnel: false, source: 'primary' } });
      expect(Object.keys(created)[0]).toBe('id');
      if (sample.content !== undefined) expect(created.content).toBe(sample.content);
      expect(typeof created.content).toBe('string');
      expect(created.content.length).toBeGreaterThan(0);
      if (sample.body.data) expect(Object.keys(created.data).sort()).toEqual(Object.keys(sample.body.data as object).sort());
      else expect(created.data).toBeUndefined();
      expect(created.proxiable).toBe(['A', 'AAAA', 'CNAME'].includes(sample.type));
      expect(created.created_on).toBe(created.modified_on);
      if (['MX', 'URI', 'SRV'].includes(sample.type)) expect(created.priority).toBe(10);

      expect(await cf.dns.records.get(created.id, { zone_id: zoneId })).toEqual(created);
      const listed = await cf.dns.records.list({ zone_id: zoneId, type: sample.type as Any, name: { exact: sample.name } });
      expect(listed.result.map((r: Any) => r.id)).toEqual([created.id]);

      const edited = await cf.dns.records.edit(created.id, { zone_id: zoneId, ttl: 3600, comment: 'edited', ...sample.change } as Any) as Any;
      expect(edited).toMatchObject({ id: created.id, name: sample.name, type: sample.type, ttl: 3600, comment: 'edited' });
      if ('content' in sample.change || 'data' in sample.change) expect(edited.content).not.toBe(created.content);
      if ('priority' in sample.change) expect(edited.priority).toBe(sample.change.priority);
      expect(edited.comment_modified_on).toBe(edited.modified_on);
      expect(edited.created_on).toBe(created.created_on);

      const updated = await cf.dns.records.update(created.id, { zone_id: zoneId, type: sample.type, ...sample.body } as Any) as Any;
      expect(updated).toMatchObject({ id: created.id, ttl: 1, comment: null, tags: [] });
      expect(updated.content).toBe(created.content);
      expect(updated.comment_modified_on).toBeUndefined();

      expect(await cf.dns.records.delete(created.id, { zone_id: zoneId })).toEqual({ id: created.id });
      const err = await cf.dns.records.get(created.id, { zone_id: zoneId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Cloudflare.NotFoundError);
      expect((err as InstanceType<typeof Cloudflare.NotFoundError>).errors[0]).toMatchObject({ code: 81044, message: 'Record does not exist.' });
    });
  }
});
