import { describe, expect, it } from 'vitest';
import { ancestorsOf, delegatesTo, displacesBelow, obstacleTo, type ZoneClaim } from './ownership-rules.js';

const NS = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];
const now = new Date('2026-01-01T00:00:00Z');
const zone = (id: string, account: string, name: string, extra: Partial<ZoneClaim> = {}): ZoneClaim =>
  ({ id, account_id: account, name, status: 'active', name_servers: JSON.stringify(NS), hold_after: null, hold_include_subdomains: 0, ...extra });

describe('ownership rules', () => {
  it('lists ancestors nearest first', () => {
    expect(ancestorsOf('a.b.example.com')).toEqual(['b.example.com', 'example.com', 'com']);
    expect(ancestorsOf('com')).toEqual([]);
  });

  it('compares delegations as sets of host names', () => {
    expect(delegatesTo(['NS2.stratus.invalid.', 'ns1.stratus.invalid'], NS)).toBe(true);
    expect(delegatesTo(['ns1.stratus.invalid'], NS)).toBe(false);
    expect(delegatesTo([...NS, 'ns.elsewhere.example'], NS)).toBe(false);
    expect(delegatesTo([], [])).toBe(false);
  });

  it('a zone below another account\'s active zone needs its delegation', () => {
    const parent = zone('p', 'A', 'victim.example');
    const child = { account_id: 'B', name: 'www.victim.example', nameServers: NS };
    expect(obstacleTo(child, [parent], [], now)).toBe('not-delegated');
    expect(obstacleTo(child, [parent], NS, now)).toBeUndefined();
    expect(obstacleTo({ ...child, account_id: 'A' }, [parent], [], now)).toBeUndefined();
    // Two accounts waiting for the same delegation: the shared name servers cannot tell them apart.
    expect(obstacleTo(child, [parent, zone('c', 'C', 'www.victim.example', { status: 'pending' })], NS, now)).toBe('ambiguous-delegation');
    // Only the closest active zone above counts; a pending one in between does not.
    expect(obstacleTo({ ...child, name: 'x.www.victim.example' }, [parent, zone('w', 'B', 'www.victim.example', { status: 'pending' })], [], now)).toBe('not-delegated');
    expect(obstacleTo({ ...child, name: 'x.www.victim.example' }, [parent, zone('w', 'B', 'www.victim.example')], [], now)).toBeUndefined();
  });

  it('a name active in another account, or held by it, is not for the candidate', () => {
    expect(obstacleTo({ account_id: 'B', name: 'a.example', nameServers: NS }, [zone('a', 'A', 'a.example')], [], now)).toBe('name-active-elsewhere');
    expect(obstacleTo({ account_id: 'B', name: 'a.example', nameServers: NS }, [zone('a', 'A', 'a.example', { status: 'pending' })], [], now)).toBeUndefined();
    const held = zone('h', 'A', 'held.example', { hold_after: '2025-01-01T00:00:00Z' });
    expect(obstacleTo({ account_id: 'B', name: 'www.held.example', nameServers: NS }, [held], NS, now)).toBeUndefined();
    expect(obstacleTo({ account_id: 'B', name: 'www.held.example', nameServers: NS }, [{ ...held, hold_include_subdomains: 1 }], NS, now)).toBe('held');
    expect(obstacleTo({ account_id: 'B', name: 'www.held.example', nameServers: NS }, [{ ...held, hold_include_subdomains: 1, hold_after: '2027-01-01T00:00:00Z' }], NS, now)).toBeUndefined();
  });

  it('a delegation names one account\'s pair: another account\'s zone with its own pair is not activated by it', () => {
    const parent = zone('p', 'A', 'alpha.test');
    const aPair = ['ada.stratus.invalid', 'bob.stratus.invalid'];
    const bPair = ['bob.stratus.invalid', 'cruz.stratus.invalid'];
    const squatter = { account_id: 'B', name: 'shop.alpha.test', nameServers: bPair };
    expect(obstacleTo(squatter, [parent], aPair, now)).toBe('not-delegated');
    expect(obstacleTo(squatter, [parent], bPair, now)).toBeUndefined();
    // With distinct pairs another account's pending zone of the name no longer blocks the delegated one.
    expect(obstacleTo(squatter, [parent, zone('c', 'C', 'shop.alpha.test', { status: 'pending', name_servers: JSON.stringify(aPair) })], bPair, now)).toBeUndefined();
    // The same pair in two accounts (pool off or given twice) is still ambiguous.
    expect(obstacleTo(squatter, [parent, zone('c', 'C', 'shop.alpha.test', { status: 'pending', name_servers: JSON.stringify(bPair) })], bPair, now)).toBe('ambiguous-delegation');
  });

  it('a later parent does not displace another account\'s active zone below it unless it delegates to it', () => {
    const kid = { account_id: 'A', name: 'shop.parent-later.net', name_servers: JSON.stringify(NS) };
    const parent = { account_id: 'B', name: 'parent-later.net', nameServers: ['x.stratus.invalid', 'y.stratus.invalid'] };
    expect(displacesBelow(parent, [kid], () => [])).toBe(true);
    expect(obstacleTo(parent, [], [], now, [kid], () => [])).toBe('occupied-below');
    expect(obstacleTo(parent, [], [], now, [kid], (n) => (n === kid.name ? NS : []))).toBeUndefined();
    // The same account's zones below need nothing; an active zone already is never displaced by this rule.
    expect(displacesBelow({ ...parent, account_id: 'A' }, [kid], () => [])).toBe(false);
    expect(displacesBelow({ ...parent, status: 'active' }, [kid], () => [])).toBe(false);
    // A zone with an active zone between it and the candidate keeps that one as its parent.
    const mid = { account_id: 'C', name: 'shop.parent-later.net', name_servers: JSON.stringify(NS) };
    const deep = { account_id: 'A', name: 'x.shop.parent-later.net', name_servers: JSON.stringify(NS) };
    expect(displacesBelow(parent, [mid, deep], (n) => (n === mid.name ? NS : []))).toBe(false);
  });
});
