import { describe, expect, it } from 'vitest';
import { ancestorsOf, delegatesTo, obstacleTo, type ZoneClaim } from './ownership-rules.js';

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
});
