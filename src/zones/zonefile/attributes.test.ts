import { describe, expect, it } from 'vitest';
import { formatAttributes, parseAttributes, type LineAttributes } from './attributes.js';

describe('record attributes in line comments', () => {
  it('parses comment and tags, empty values in all three forms', () => {
    expect(parseAttributes('authentication dash cf_tags=cf-proxied:true,a:"",b:,c,cf-flatten-cname')).toEqual({
      comment: 'authentication dash', tags: ['a:', 'b:', 'c:'], proxied: true, flattenCname: true,
    });
    expect(parseAttributes('just a comment')).toEqual({ comment: 'just a comment', tags: [] });
    expect(parseAttributes(null)).toEqual({ comment: null, tags: [] });
  });

  it.each<LineAttributes>([
    { comment: null, tags: [], proxied: false },
    { comment: 'web server', tags: ['team:dns', 'env:prod'], proxied: true },
    { comment: 'mentions cf_tags=literally', tags: [] },
    { comment: 'mentions cf_tags=x', tags: ['q:a,b="c" cf_tags=d\\e'], proxied: false, flattenCname: true },
    { comment: null, tags: ['empty:'] },
  ])('round-trips %j', (attrs) => {
    const text = formatAttributes(attrs);
    const back = parseAttributes(text === '' ? null : text);
    expect(back).toEqual(attrs);
  });

  it('writes the production form', () => {
    expect(formatAttributes({ comment: 'authentication dash', tags: [], proxied: true })).toBe('authentication dash cf_tags=cf-proxied:true');
    expect(formatAttributes({ comment: null, tags: [] })).toBe('');
  });
});
