import { describe, expect, it } from 'vitest';
import { AddressPolicy, PROHIBITED_RANGES } from './address-policy.js';

const REFUSED = [
  '127.0.0.1', '127.255.255.254', '0.0.0.0', '0.1.2.3', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1',
  '169.254.169.254', '192.0.0.8', '198.18.0.1', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
  '::', '::1', '::127.0.0.1', 'fe80::1', 'fe80::1%eth0', '[::1]', 'fc00::1', 'fd12:3456::1', 'fec0::1', 'ff02::1', '2001::1', '100::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0.0.0.0',
  '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::10.1.2.3', '64:ff9b:1::1',
  '2002:7f00:1::', '2002:a9fe:a9fe::1', '2002:c0a8:101::1', '::ffff:0:127.0.0.1',
];
const PERMITTED = ['1.1.1.1', '8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'];

describe('AddressPolicy', () => {
  const policy = new AddressPolicy();

  it('refuses loopback, this network, private, CGNAT, link-local, unique-local, multicast, reserved and their IPv6 forms', () => {
    for (const a of REFUSED) expect(policy.permits(a), a).toBe(false);
  });

  it('permits public addresses, also in their mapped, NAT64 and 6to4 forms', () => {
    for (const a of PERMITTED) expect(policy.permits(a), a).toBe(true);
  });

  it('names the range that refused, and refuses text that is no address', () => {
    expect(policy.refusal('10.0.0.1')).toBe('10.0.0.0/8');
    expect(policy.refusal('64:ff9b::7f00:1')).toBe('64:ff9b::7f00:0/104');
    expect(policy.refusal('2002:7f00:1::')).toBe('2002:7f00::/24');
    expect(policy.refusal('localhost')).toBe('malformed');
    expect(policy.refusal('127.1')).toBe('malformed');
    expect(policy.refusal('1.1.1.1')).toBeUndefined();
  });

  it('allows the operator ranges and nothing around them; this host\'s addresses are refused unless allowed', () => {
    const loop = new AddressPolicy({ allow: ['127.0.0.0/8'], deny: ['203.0.113.7/32'] });
    expect(['127.0.0.1', '::ffff:127.0.0.1', '127.9.9.9'].map((a) => loop.permits(a))).toEqual([true, true, true]);
    expect(['::1', '10.0.0.1', '64:ff9b::127.0.0.1', '203.0.113.7', '203.0.113.8'].map((a) => loop.permits(a))).toEqual([false, false, false, false, true]);
    const narrow = new AddressPolicy({ allow: ['10.1.0.0/16'] });
    expect(['10.1.2.3', '10.2.0.1'].map((a) => narrow.permits(a))).toEqual([true, false]);
    expect(new AddressPolicy({ allow: ['203.0.113.0/24'], deny: ['203.0.113.7/32'] }).permits('203.0.113.7')).toBe(true);
  });

  it('gives workerd the same decision: the deny list leaves out ranges inside an allowed one, and only those', () => {
    const net = new AddressPolicy({ allow: ['127.0.0.0/8', '10.1.0.0/16'], deny: ['203.0.113.7/32'] }).workerdNetwork();
    expect(net.allow).toEqual(['0.0.0.0/0', '::/0', '127.0.0.0/8', '10.1.0.0/16']);
    expect(net.deny).not.toContain('127.0.0.0/8');
    expect(net.deny).toContain('10.0.0.0/8'); // less specific than the allowed /16: kj lets the /16 win
    expect(net.deny).toContain('64:ff9b::7f00:0/104');
    expect(net.deny).toContain('203.0.113.7/32');
    expect(new AddressPolicy().workerdNetwork().deny).toEqual([...PROHIBITED_RANGES]);
  });
});
