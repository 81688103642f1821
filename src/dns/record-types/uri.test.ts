import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

describe('URI', () => {
  it('takes top-level priority and data weight/target', () => {
    expect(check('URI', { priority: 10, data: { weight: 20, target: 'http://example.com/example.html' } }).value)
      .toEqual({ content: '20 "http://example.com/example.html"', data: { weight: 20, target: 'http://example.com/example.html' }, priority: 10 });
  });
  it('reads content with the top-level priority when data is absent', () => {
    expect(check('URI', { priority: 10, content: '20 "https://example.com/"' }).value)
      .toEqual({ content: '20 "https://example.com/"', data: { weight: 20, target: 'https://example.com/' }, priority: 10 });
  });
  it('requires priority and a URI target', () => {
    expect(check('URI', { data: { weight: 20, target: 'http://example.com/' } }).codes).toEqual([9518]);
    expect(check('URI', { priority: 1, data: { weight: 70000, target: 'not a uri' } }).codes).toEqual([9512, 9512]);
    expect(check('URI', { priority: 1, data: { target: 'ftp://x' } }).codes).toEqual([9512]);
  });
});
