import { describe, expect, it } from 'vitest';
import { canonicalIPv6, cidrContains, findContainingRange, parseCidr, parseIPv4, parseIPv6 } from './ip.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';

describe('parseIPv4', () => {
  it('parses strict dotted quads', () => {
    expect([...parseIPv4('0.0.0.0')!]).toEqual([0, 0, 0, 0]);
    expect([...parseIPv4('255.255.255.255')!]).toEqual([255, 255, 255, 255]);
  });
  it.each(['1.1', '1', '1.2.3', '1.2.3.256', '1.2.3.04', '0x1.2.3.4', '1.2.3.4 ', '', '1..2.3'])('refuses %j', (t) => {
    expect(parseIPv4(t)).toBeUndefined();
  });
  it('agrees with the split-and-regex reading it replaced on random texts', () => {
    const reference = (text: string): number[] | undefined => {
      const parts = text.split('.');
      if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
      return parts.map(Number);
    };
    const random = seededRandom(29);
    const alphabet = ['0', '1', '2', '5', '9', '.', '.', 'x', ' ', '-', '+', '25', '255', '256', '00'];
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      const len = Math.floor(random() * 12);
      for (let k = 0; k < len; k++) text += alphabet[Math.floor(random() * alphabet.length)];
      const got = parseIPv4(text);
      expect(got && [...got], text).toEqual(reference(text));
    }
  });
});

describe('IPv6', () => {
  it.each([
    ['fe80::0:0:1', 'fe80::1'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['::ffff:192.0.2.128', '::ffff:192.0.2.128'],
    ['::ffff:c000:280', '::ffff:192.0.2.128'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
  ])('%s -> %s', (input, out) => {
    expect(canonicalIPv6(input)).toBe(out);
  });
  it.each(['1::2::3', ':1::2', '1:2:3:4:5:6:7:8:9', '12345::', 'fe80::1%1', '::1.2.3', '1.2.3.4', '::ffff:1.2.3.04', 'x::1'])('refuses %j', (t) => {
    expect(parseIPv6(t)).toBeUndefined();
  });
});

describe('CIDR', () => {
  it('parses and tests membership', () => {
    const r = parseCidr('192.0.2.0/25')!;
    expect(cidrContains(r, parseIPv4('192.0.2.127')!)).toBe(true);
    expect(cidrContains(r, parseIPv4('192.0.2.128')!)).toBe(false);
    const v6 = parseCidr('2001:db8::/33')!;
    expect(cidrContains(v6, parseIPv6('2001:db8:7fff::1')!)).toBe(true);
    expect(cidrContains(v6, parseIPv6('2001:db8:8000::1')!)).toBe(false);
    expect(cidrContains(parseCidr('0.0.0.0/0')!, parseIPv4('8.8.8.8')!)).toBe(true);
    expect(cidrContains(parseCidr('10.0.0.1')!, parseIPv4('10.0.0.1')!)).toBe(true);
  });
  it('does not mix families except IPv4-mapped addresses', () => {
    expect(cidrContains(parseCidr('10.0.0.0/8')!, parseIPv6('::a00:1')!)).toBe(false);
    expect(cidrContains(parseCidr('10.0.0.0/8')!, parseIPv6('::ffff:10.0.0.1')!)).toBe(true);
    expect(cidrContains(parseCidr('::/0')!, parseIPv4('10.0.0.1')!)).toBe(false);
  });
  it('refuses malformed ranges and skips them when searching', () => {
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('10.0.0.0/')).toBeUndefined();
    expect(parseCidr('::/129')).toBeUndefined();
    expect(findContainingRange(parseIPv4('10.0.0.1')!, ['bogus', '10.0.0.0/8'])).toBe('10.0.0.0/8');
    expect(findContainingRange(parseIPv4('11.0.0.1')!, ['10.0.0.0/8'])).toBeUndefined();
  });
});
