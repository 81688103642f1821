/** The api date of a request over HTTP, and the schedule endpoint. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api } from '../helpers/api.js';
import { fixedClock } from '../../src/shared/clock.js';

describe('api date', () => {
  let pinned: TestServer;
  let today: TestServer;
  beforeAll(async () => {
    pinned = await startTestServer({ flags: { 'api-date': '2024-06-01' } });
    today = await startTestServer({ clock: fixedClock(new Date('2025-03-20T12:00:00Z')) });
  });
  afterAll(async () => { await pinned?.stop(); await today?.stop(); });

  it('uses the header, else --api-date, else today, and echoes the effective date', async () => {
    expect((await api(pinned, 'GET', '/deprecations', undefined, { 'api-version': '2023-01-02' })).headers.get('api-version')).toBe('2023-01-02');
    expect((await api(pinned, 'GET', '/deprecations')).headers.get('api-version')).toBe('2024-06-01');
    expect((await api(today, 'GET', '/deprecations')).headers.get('api-version')).toBe('2025-03-20');
  });

  it('clamps a header later than the server date (the SDK sends its own today)', async () => {
    const res = await api(pinned, 'GET', '/deprecations/zone-setting-brotli', undefined, { 'api-version': '2030-01-01' });
    expect(res.headers.get('api-version')).toBe('2024-06-01');
    expect(res.body.result.phase).toBe('active');
    const zones = await pinned.sdk().zones.list();
    expect(zones.result).toEqual([]);
  });

  it('refuses a malformed header with a clear 400', async () => {
    for (const bad of ['2024-13-01', '2024-02-30', 'yesterday', '2024-1-1']) {
      const res = await api(pinned, 'GET', '/deprecations', undefined, { 'api-version': bad });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 6003, message: 'Invalid request headers', error_chain: [{ code: 6120 }] });
      expect(res.body.errors[0]!.error_chain![0]!.message).toContain(bad);
    }
  });

  it('serves the schedule without authentication, with phases at the api date', async () => {
    const res = await api(today, 'GET', '/deprecations', undefined, { 'x-auth-email': undefined, 'x-auth-key': undefined });
    expect(res.status).toBe(200);
    expect(res.body.result).toHaveLength(26);
    const byId = Object.fromEntries(res.body.result.map((e: { id: string }) => [e.id, e]));
    expect(byId['zone-setting-cname-flattening']).toMatchObject({ date: '2025-03-21', phase: 'active', successor: '/client/v4/zones/:zone_id/dns_settings' });
    expect(byId['account-default-nameservers-fields'].phase).toBe('deprecated');
    expect(byId['dns-records-list-filter-forms']).toMatchObject({ phase: 'removed', parts: { 'multi-value': { removal: '2025-05-23', phase: 'deprecated' } } });
    const missing = await api(today, 'GET', '/deprecations/nope');
    expect(missing.status).toBe(404);
  });
});
