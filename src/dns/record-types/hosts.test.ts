import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

describe('CNAME, NS, PTR', () => {
  it.each(['CNAME', 'NS', 'PTR'] as const)('%s stores a lowercase host name without trailing dot', (type) => {
    expect(check(type, { content: 'Target.Example.NET.' }, { recordName: 'www.example.com' }).value)
      .toEqual({ content: 'target.example.net', data: null, priority: null });
  });
  it.each(['CNAME', 'NS', 'PTR'] as const)('%s refuses non-host content with 9515', (type) => {
    const r = check(type, { content: 'not a host' });
    expect(r.codes).toEqual([9515]);
    expect(r.messages[0]).toMatch(new RegExp(`^Content for ${type} record must be a valid hostname`));
    expect(check(type, { content: '192.0.2.1/24' }).codes).toEqual([9515]);
    expect(check(type, { content: '' }).codes).toEqual([9510]);
  });
  it('refuses a CNAME to its own name', () => {
    const r = check('CNAME', { content: 'WWW.example.com.' }, { recordName: 'www.example.com' });
    expect(r.codes).toEqual([9517]);
    expect(check('CNAME', { content: 'www.example.com' }, { recordName: 'web.example.com' }).codes).toEqual([]);
  });
  it('ignores a priority sent with a non-MX type', () => {
    expect(check('NS', { content: 'ns1.example.net', priority: 10 }).value?.priority).toBeNull();
  });
});

describe('MX', () => {
  it('takes a host name and a priority', () => {
    expect(check('MX', { content: 'Mail.Example.com', priority: 10 }).value).toEqual({ content: 'mail.example.com', data: null, priority: 10 });
    expect(check('MX', { content: '.', priority: 0 }).value).toEqual({ content: '.', data: null, priority: 0 });
    expect(check('MX', { content: 'mx.example.com', priority: '20' }).value?.priority).toBe(20);
  });
  it('requires priority 0..65535', () => {
    expect(check('MX', { content: 'mail.example.com' }).codes).toEqual([9518]);
    expect(check('MX', { content: 'mail.example.com', priority: 65536 }).codes).toEqual([9519]);
    expect(check('MX', { content: 'mail.example.com', priority: 1.5 }).codes).toEqual([9519]);
    expect(check('MX', { content: 'mail.example.com', priority: -1 }).codes).toEqual([9519]);
  });
  it('refuses non-host content with 9009 and reports every problem', () => {
    const r = check('MX', { content: 'mail server' });
    expect(r.codes).toEqual([9518, 9009]);
    expect(r.messages[1]).toMatch(/^Content for MX record must be a hostname/);
  });
});

describe('OPENPGPKEY', () => {
  it('takes base64, white space removed', () => {
    expect(check('OPENPGPKEY', { content: 'mQINBF3g\n 2nABEAC=' }).value).toEqual({ content: 'mQINBF3g2nABEAC=', data: null, priority: null });
  });
  it('refuses non-base64', () => {
    expect(check('OPENPGPKEY', { content: 'not base64!' }).codes).toEqual([9514]);
    expect(check('OPENPGPKEY', { content: 'abc' }).codes).toEqual([9514]);
  });
});
