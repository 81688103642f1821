import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';

describe('POST /accounts', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.stop(); });

  it('creates an account the caller sees at once, with legacy name-server fields in sync with the DNS settings', async () => {
    const created = await api(server, 'POST', '/accounts', { name: 'Ops', type: 'standard', settings: { default_nameservers: 'custom.tenant' } });
    expect(created.status).toBe(200);
    expect(created.body.result).toMatchObject({ name: 'Ops', type: 'standard', settings: { default_nameservers: 'custom.tenant', use_account_custom_ns_by_default: false } });
    const id = created.body.result.id as string;
    expect(id).toMatch(/^[0-9a-f]{32}$/);

    const list = await api(server, 'GET', '/accounts');
    expect(list.body.result.map((a: { id: string }) => a.id)).toContain(id);
    const dns = await api(server, 'GET', `/accounts/${id}/dns_settings`);
    expect(dns.body.result.zone_defaults.nameservers.type).toBe('custom.tenant');

    const zone = await server.sdk().zones.create({ account: { id }, name: 'accounts-create.example', type: 'full' });
    expect(zone.account?.id).toBe(id);
  });

  it('keeps the new account invisible to other users', async () => {
    const created = await api(server, 'POST', '/accounts', { name: 'Private' });
    const other = await addUser(server, 'other-accounts@example.com');
    const foreign = await api(server, 'GET', `/accounts/${created.body.result.id}`, undefined, { 'x-auth-email': other.email, 'x-auth-key': other.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0].code).toBe(7003);
  });

  it('refuses bad bodies with clear errors and stores nothing', async () => {
    const before = (await api(server, 'GET', '/accounts')).body.result_info!.total_count;
    const cases: [unknown, number][] = [
      [{}, 1113], [{ name: '' }, 1113], [{ name: 'x'.repeat(101) }, 1113], [{ name: 'A', type: 'reseller' }, 1113],
      [{ name: 'A', settings: [] }, 1113], [[1], 1104], [{ name: 'A', settings: { default_nameservers: 'nope' } }, 1105],
    ];
    for (const [body, code] of cases) {
      const res = await api(server, 'POST', '/accounts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].code, JSON.stringify(body)).toBe(code);
    }
    expect((await api(server, 'GET', '/accounts')).body.result_info!.total_count).toBe(before);
  });
});
