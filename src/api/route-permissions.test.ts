import { describe, expect, it } from 'vitest';
import { routeRequirement } from './route-permissions.js';

const Z = 'f'.repeat(32);
const A = 'e'.repeat(32);

describe('route requirements of API tokens', () => {
  it.each([
    ['GET', `/zones/${Z}/dns_records`, 'zone', ['dns:read']],
    ['GET', `/zones/${Z}/dns_records/export`, 'zone', ['dns:read']],
    ['POST', `/zones/${Z}/dns_records/batch`, 'zone', ['dns:edit']],
    ['POST', `/zones/${Z}/dns_records/import`, 'zone', ['dns:edit']],
    ['DELETE', `/zones/${Z}/dns_records/${Z}`, 'zone', ['dns:edit']],
    ['GET', `/zones/${Z}/dns_settings`, 'zone', ['zone_dns_settings:read', 'dns:read']],
    ['PATCH', `/zones/${Z}/dns_settings/use_apex_ns`, 'zone', ['zone_dns_settings:edit', 'dns:edit']],
    ['PATCH', `/zones/${Z}/settings/http2`, 'zone', ['zone_settings:edit']],
    ['GET', `/zones/${Z}/hold`, 'zone', ['zone:read']],
    ['POST', `/zones/${Z}/hold`, 'zone', ['zone:edit']],
    ['PATCH', `/zones/${Z}/hold`, 'zone', ['zone:edit']],
    ['DELETE', `/zones/${Z}/hold`, 'zone', ['zone:edit']],
    ['PUT', `/zones/${Z}/activation_check`, 'zone', ['zone:edit']],
    ['GET', `/zones/${Z}`, 'zone', []],
    ['DELETE', `/zones/${Z}`, 'zone', ['zone:edit']],
    ['GET', '/zones', 'none', []],
    ['POST', '/zones', 'account', ['zone:edit']],
    ['GET', '/accounts', 'none', []],
    ['PUT', `/accounts/${A}`, 'account', ['account_settings:edit']],
    ['PATCH', `/accounts/${A}/dns_settings`, 'account', ['account_dns_settings:edit']],
    ['GET', `/accounts/${A}/tokens/verify`, 'none', []],
    ['POST', `/accounts/${A}/tokens`, 'account', ['account_tokens:edit']],
    ['GET', '/user/tokens/verify', 'none', []],
    ['GET', `/accounts/${A}/workers/scripts`, 'account', ['workers_scripts:read']],
    ['PUT', `/accounts/${A}/workers/scripts/hello`, 'account', ['workers_scripts:edit']],
    ['POST', `/accounts/${A}/workers/scripts/hello/versions`, 'account', ['workers_scripts:edit']],
    ['PUT', `/accounts/${A}/workers/scripts/hello/secrets`, 'account', ['workers_scripts:edit']],
    ['GET', `/accounts/${A}/workers/services/hello`, 'account', ['workers_scripts:read']],
    ['DELETE', `/accounts/${A}/workers/services/hello`, 'account', ['workers_scripts:edit']],
    ['PUT', `/accounts/${A}/workers/subdomain`, 'account', ['workers_scripts:edit']],
    ['GET', `/accounts/${A}/workers/tails/by-consumer/hello`, 'account', ['workers_scripts:read']],
    ['GET', `/zones/${Z}/workers/routes`, 'zone', ['workers_routes:read']],
    ['PUT', `/zones/${Z}/workers/routes/${Z}`, 'zone', ['workers_routes:edit']],
    ['GET', '/user/tokens/permission_groups', 'user', ['user_tokens:read']],
    ['PUT', `/user/tokens/${Z}/value`, 'user', ['user_tokens:edit']],
  ])('%s %s', (method, path, scope, anyOf) => {
    const accountId = scope === 'account' && path.startsWith('/accounts/') ? { accountId: A } : {};
    expect(routeRequirement(method, path)).toEqual({ scope, anyOf, ...accountId });
  });

  it('routes not listed give a token nothing', () => {
    expect(routeRequirement('POST', '/accounts')).toBeUndefined();
    expect(routeRequirement('GET', `/zones/${Z}/firewall/rules`)).toBeUndefined();
    expect(routeRequirement('GET', `/zones/${Z}/activation_check`)).toBeUndefined();
  });
});
