/**
 * The dashboard's record forms (dashboard/src/record-types.ts) against the real API: one form per writable type
 * (every type of src/dns/record.ts but the pre-signed ones), with the `data` fields the API reads; each sample of
 * test/api/record-samples.ts, typed into the form's fields as text, makes a body the API accepts and stores as
 * sent. No browser: the body is what the form's submit sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESIGNED_TYPES, RECORD_TYPES } from '../../src/dns/record.js';
import { recordBody, TYPE_FORMS } from '../../dashboard/src/record-types.js';
import { recordSamples } from '../api/record-samples.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ZONE = 'record-forms.example';

describe('dashboard record forms', () => {
  let server: TestServer;
  let zoneId: string;
  const call = async (method: string, p: string, body?: unknown) => (await fetch(`${server.apiBase}${p}`, {
    method, headers: { 'x-auth-email': server.email, 'x-auth-key': server.key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })).json();
  beforeAll(async () => {
    server = await startTestServer();
    const account = (await call('GET', '/accounts')).result[0].id;
    zoneId = (await call('POST', '/zones', { name: ZONE, account: { id: account } })).result.id;
    // DNSKEY records are taken only from a multi-signer zone.
    expect((await call('PATCH', `/zones/${zoneId}/dnssec`, { dnssec_multi_signer: true })).success).toBe(true);
  });
  afterAll(async () => { await server?.stop(); });

  it('has a form for every writable type, and only for those', () => {
    expect(Object.keys(TYPE_FORMS).sort()).toEqual(RECORD_TYPES.filter((t) => !PRESIGNED_TYPES.has(t)).sort());
  });

  it('turns what a user types into bodies the API accepts, for every type', async () => {
    const samples = recordSamples(ZONE);
    expect(samples.map((s) => s.type).sort()).toEqual(Object.keys(TYPE_FORMS).sort());
    for (const sample of samples) {
      const form = TYPE_FORMS[sample.type]!;
      const b = sample.body as { name: string; content?: string; priority?: number; data?: Record<string, unknown> };
      // The form's fields are the sample's: content or data, and priority where the type has one at the top.
      if (form.data) expect(form.data.map((f) => f.key).sort(), sample.type).toEqual(Object.keys(b.data ?? {}).sort());
      else expect(b.content, sample.type).toBeDefined();
      const typed = {
        type: sample.type, name: b.name, content: b.content ?? '', priority: String(b.priority ?? ''),
        data: Object.fromEntries(Object.entries(b.data ?? {}).map(([k, v]) => [k, String(v)])),
        ttl: '3600', proxied: false, comment: `made by the ${sample.type} form`, tags: 'source:dashboard',
      };
      const created = await call('POST', `/zones/${zoneId}/dns_records`, recordBody(typed));
      expect(created.errors, sample.type).toEqual([]);
      expect(created.result, sample.type).toMatchObject({ type: sample.type, name: sample.name, ttl: 3600, comment: `made by the ${sample.type} form`, tags: ['source:dashboard'] });
      if (sample.content !== undefined) expect(created.result.content, sample.type).toBe(sample.content);
      // The API normalizes case (hex digests, names); the values are what the fields held.
      const lower = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v.toLowerCase() : v]));
      if (form.data) expect(lower(created.result.data), sample.type).toMatchObject(lower(b.data!));
    }
  });
});
