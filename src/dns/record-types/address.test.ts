import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

describe('A', () => {
  it('accepts a dotted quad', () => {
    expect(check('A', { content: ' 198.51.100.4 ' }).value).toEqual({ content: '198.51.100.4', data: null, priority: null });
  });
  it.each(['1.1', '1.2.3', '256.1.1.1', '01.2.3.4', '1.2.3.4.5', 'a.b.c.d', '::1', '1.2.3.-4'])('refuses %s with 9005', (content) => {
    const r = check('A', { content });
    expect(r.value).toBeUndefined();
    expect(r.codes).toEqual([9005]);
  });
  it('requires content', () => {
    expect(check('A', {}).codes).toEqual([9510]);
    expect(check('A', { content: 5 }).codes).toEqual([9525]);
  });
  it('refuses addresses in the service ranges', () => {
    const r = check('A', { content: '104.16.0.9' }, { serviceRanges: ['104.16.0.0/13'] });
    expect(r.codes).toEqual([9516]);
    expect(r.messages[0]).toContain('104.16.0.0/13');
    expect(check('A', { content: '104.24.0.1' }, { serviceRanges: ['104.16.0.0/13'] }).codes).toEqual([]);
  });
});

describe('AAAA', () => {
  it('stores the RFC 5952 form', () => {
    expect(check('AAAA', { content: 'fe80::0:0:1' }).value?.content).toBe('fe80::1');
    expect(check('AAAA', { content: '2001:DB8:0:0:1:0:0:1' }).value?.content).toBe('2001:db8::1:0:0:1');
    expect(check('AAAA', { content: '::FFFF:192.0.2.1' }).value?.content).toBe('::ffff:192.0.2.1');
  });
  it.each(['1.2.3.4', 'fe80::1::2', 'fe80::1%eth0', '12345::1', 'g::1', '1:2:3:4:5:6:7:8:9'])('refuses %s with 9006', (content) => {
    expect(check('AAAA', { content }).codes).toEqual([9006]);
  });
  it('refuses service ranges, IPv4-mapped addresses against v4 ranges too', () => {
    expect(check('AAAA', { content: '2606:4700::1' }, { serviceRanges: ['2606:4700::/32'] }).codes).toEqual([9516]);
    expect(check('AAAA', { content: '::ffff:104.16.0.1' }, { serviceRanges: ['104.16.0.0/13'] }).codes).toEqual([9516]);
    expect(check('AAAA', { content: '2001:db8::1' }, { serviceRanges: ['2606:4700::/32', '104.16.0.0/13'] }).codes).toEqual([]);
  });
});

describe('validateRecordValue', () => {
  it('refuses a type without a spec', () => {
    expect(check('BOGUS' as 'A', { content: 'x' }).codes).toEqual([9514]);
    expect(check('toString' as 'A', { content: 'x' }).codes).toEqual([9514]);
  });
});
