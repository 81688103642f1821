import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

describe('CAA', () => {
  it('derives content from data', () => {
    expect(check('CAA', { data: { flags: 0, tag: 'ISSUE', value: 'letsencrypt.org' } }).value)
      .toEqual({ content: '0 issue "letsencrypt.org"', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, priority: null });
    expect(check('CAA', { data: { flags: 128, tag: 'iodef', value: 'mailto:"sec"@example.com' } }).value?.content)
      .toBe('128 iodef "mailto:\\"sec\\"@example.com"');
  });
  it('checks every field and reports each problem', () => {
    const r = check('CAA', { data: { flags: 256, tag: 'not a tag', value: 5 } });
    expect(r.codes).toEqual([9512, 9512, 9512]);
    expect(r.messages[0]).toBe('Content for CAA record is invalid: data.flags must be an integer from 0 to 255.');
  });
  it('reads content in the returned form when data is absent', () => {
    expect(check('CAA', { content: '0 ISSUE "letsencrypt.org"' }).value)
      .toEqual({ content: '0 issue "letsencrypt.org"', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, priority: null });
    const r = check('CAA', { content: '0 issue' });
    expect(r.codes).toEqual([9514]);
    expect(r.messages[0]).toBe('Content for CAA record is invalid: send data, or content in the form the API returns (CAA RDATA needs 3 fields, got 2).');
    expect(check('CAA', { content: '300 issue "x"' }).codes).toEqual([9512]);
  });
  it('requires data and refuses unknown fields', () => {
    expect(check('CAA', {}).codes).toEqual([9511]);
    expect(check('CAA', { data: [] }).codes).toEqual([9511]);
    expect(check('CAA', { data: { flags: 0, tag: 'issue' } }).codes).toEqual([9512]);
    expect(check('CAA', { data: { flags: 0, tag: 'issue', value: 'x', weight: 1 } }).codes).toEqual([9513]);
    expect(check('CAA', { data: { flags: 0, tag: 'issue', value: 'x', weight: null } }).codes).toEqual([]);
  });
});
