import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

describe('NAPTR', () => {
  it('derives content', () => {
    const data = { order: 100, preference: 10, flags: 's', service: 'SIP+D2U', regex: '', replacement: '_sip._udp.Example.com.' };
    expect(check('NAPTR', { data }).value).toEqual({
      content: '100 10 "S" "SIP+D2U" "" _sip._udp.example.com',
      data: { order: 100, preference: 10, flags: 'S', service: 'SIP+D2U', regex: '', replacement: '_sip._udp.example.com' },
      priority: null,
    });
    const re = { order: 100, preference: 50, flags: 'u', service: 'E2U+sip', regex: '!^.*$!sip:info@example.com!', replacement: '' };
    expect(check('NAPTR', { data: re }).value?.content).toBe('100 50 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .');
    expect(check('NAPTR', { data: { ...re, regex: '!^(.*)$!\\1!' } }).value?.content).toBe('100 50 "U" "E2U+sip" "!^(.*)$!\\\\1!" .');
  });
  it('refuses bad fields', () => {
    const r = check('NAPTR', { data: { order: 70000, preference: 10, flags: 'S!', service: 'x'.repeat(256), regex: '', replacement: 'bad name' } });
    expect(r.codes).toEqual([9512, 9512, 9512, 9512]);
    expect(check('NAPTR', { data: { order: 1, preference: 1, flags: 'S', service: 's' } }).codes).toEqual([9512, 9512]);
  });
});
