import { describe, expect, it } from 'vitest';
import { TokenGrants, parseCondition, parsePolicies, type TokenPolicy } from './token-policy.js';

const DNS_READ = '82e64a83756745bbbb1c9c2701bf816b';
const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';
const ZONE_WRITE = 'e6d2666161e84845a636613608cee8d5';
const ACCOUNT_SETTINGS_READ = 'c1fde68c7bcc44588cbb6ddbc16d6480';
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const Z1 = '1'.repeat(32);
const Z2 = '2'.repeat(32);
const U = 'c'.repeat(32);

let n = 0;
const ids = () => `p${n++}`;
const grants = (policies: unknown[], condition?: unknown) =>
  new TokenGrants(parsePolicies(policies, { kind: 'user', userId: U }, ids).policies, parseCondition(condition));
const allow = (groups: string[], resources: TokenPolicy['resources']) => ({ effect: 'allow', permission_groups: groups.map((id) => ({ id })), resources });
const deny = (groups: string[], resources: TokenPolicy['resources']) => ({ ...allow(groups, resources), effect: 'deny' });

describe('token policies', () => {
  it('a zone key grants the group on that zone only; Write implies Read', () => {
    const g = grants([allow([DNS_WRITE], { [`com.cloudflare.api.account.zone.${Z1}`]: '*' })]);
    expect(g.allowsZone('dns:edit', Z1, A)).toBe(true);
    expect(g.allowsZone('dns:read', Z1, A)).toBe(true);
    expect(g.allowsZone('dns:read', Z2, A)).toBe(false);
    expect(g.allowsZone('zone:edit', Z1, A)).toBe(false);
    expect(g.seesZone(Z1, A)).toBe(true);
    expect(g.seesZone(Z2, A)).toBe(false);
    expect(g.zoneReach()).toEqual({ all: false, accountIds: [], zoneIds: [Z1] });
  });

  it('an account key covers its zones; nested zone keys cover the named ones; deny wins', () => {
    const g = grants([
      allow([DNS_READ], { [`com.cloudflare.api.account.${A}`]: '*' }),
      allow([DNS_WRITE], { [`com.cloudflare.api.account.${B}`]: { [`com.cloudflare.api.account.zone.${Z2}`]: '*' } }),
      deny([DNS_READ], { [`com.cloudflare.api.account.zone.${Z1}`]: '*' }),
    ]);
    expect(g.allowsZone('dns:read', Z2, A)).toBe(true);
    expect(g.allowsZone('dns:read', Z1, A)).toBe(false);
    expect(g.allowsZone('dns:edit', Z2, B)).toBe(true);
    expect(g.allowsZone('dns:edit', Z1, B)).toBe(false);
    expect(g.hasDeny()).toBe(true);
    expect(g.zoneReach()).toEqual({ all: false, accountIds: [A], zoneIds: [Z2] });
    expect(g.accountReach()).toEqual({ all: false, accountIds: [A, B] });
  });

  it('wildcards: zone.* and account.* reach everything; account groups need an account key', () => {
    const g = grants([allow([ZONE_WRITE, ACCOUNT_SETTINGS_READ], { 'com.cloudflare.api.account.*': '*' })]);
    expect(g.allowsZone('zone:edit', Z1, B)).toBe(true);
    expect(g.allowsAccount('zone:edit', A)).toBe(true);
    expect(g.allowsAccount('account_settings:read', A)).toBe(true);
    expect(g.allowsAccount('account_settings:edit', A)).toBe(false);
    const zonesOnly = grants([allow([DNS_READ], { 'com.cloudflare.api.account.zone.*': '*' })]);
    expect(zonesOnly.zoneReach().all).toBe(true);
    expect(zonesOnly.allowsAccount('dns:read', A)).toBe(false);
  });

  it('R2 groups: bucket keys cover one bucket (or all with *) of a member account; account groups cover every bucket', () => {
    const g = grants([
      allow(['2efd5506f9c8494dacb1fa10a3e7d5b6'], { [`com.cloudflare.edge.r2.bucket.${A}_default_photos`]: '*' }),
      allow(['b4992e1108244f5d8bfbd5744320c2e1'], { [`com.cloudflare.api.account.${B}`]: '*' }),
    ]);
    expect(g.allowsBucket('bucket_item:edit', 'photos', [A])).toBe(true);
    expect(g.allowsBucket('bucket_item:edit', 'photos', [B])).toBe(false);
    expect(g.allowsBucket('bucket_item:edit', 'videos', [A])).toBe(false);
    expect(g.allowsBucket('bucket_item:read', 'videos', [B])).toBe(true);
    expect(g.allowsBucket('bucket_item:edit', 'videos', [B])).toBe(false);
    expect(g.allowsAnyAccount('storage:read', [A, B])).toBe(true);
    expect(g.allowsAnyAccount('storage:edit', [A, B])).toBe(false);
    expect(() => grants([allow(['2efd5506f9c8494dacb1fa10a3e7d5b6'], { [`com.cloudflare.edge.r2.bucket.${A}_default_No_Caps`]: '*' })])).toThrow(/resources key/);
  });

  it('request_ip: in and not_in, IPv4, IPv6 and IPv4-mapped addresses', () => {
    const g = grants([allow([DNS_READ], { 'com.cloudflare.api.account.zone.*': '*' })], { request_ip: { in: ['192.0.2.0/24', '2001:db8::/32'], not_in: ['192.0.2.7'] } });
    expect(g.allowsAddress('192.0.2.1')).toBe(true);
    expect(g.allowsAddress('::ffff:192.0.2.1')).toBe(true);
    expect(g.allowsAddress('192.0.2.7')).toBe(false);
    expect(g.allowsAddress('2001:db8::1')).toBe(true);
    expect(g.allowsAddress('198.51.100.1')).toBe(false);
    expect(g.allowsAddress(undefined)).toBe(false);
    expect(grants([allow([DNS_READ], { 'com.cloudflare.api.account.zone.*': '*' })]).allowsAddress(undefined)).toBe(true);
  });

  it('validation: owner bounds, key forms and values', () => {
    const account = { kind: 'account' as const, accountId: A };
    expect(() => parsePolicies([allow([DNS_READ], { 'com.cloudflare.api.account.zone.*': '*' })], account, ids)).toThrow(/account token names its zones/);
    expect(() => parsePolicies([allow([DNS_READ], { [`com.cloudflare.api.user.${U}`]: '*' })], account, ids)).toThrow(/user resources|does not apply/);
    expect(() => parsePolicies([allow([DNS_READ], { [`com.cloudflare.api.account.${A}`]: { x: '*' } })], { kind: 'user', userId: U }, ids)).toThrow(/inside an account/);
    const ok = parsePolicies([allow([DNS_READ], { [`com.cloudflare.api.account.${A}`]: { [`com.cloudflare.api.account.zone.${Z1}`]: '*' } })], account, ids);
    expect(ok.zoneIds).toEqual([Z1]);
    expect(ok.accountIds).toEqual([A]);
    expect(() => parseCondition({ request_ip: { in: 'x' } })).toThrow(/request_ip\.in/);
  });
});
