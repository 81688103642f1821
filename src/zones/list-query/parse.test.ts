import { describe, expect, it } from 'vitest';
import { parseFilters, type QueryValues } from './parse.js';
import { nameComparison } from './names.js';
import { txtStoredForm } from './txt-forms.js';
import { escapeLike } from './sql.js';

const parse = (q: QueryValues, apiDate = '2026-01-01') => {
  const problems: string[] = [];
  const out = parseFilters(q, 'example.com', apiDate, (p, v) => problems.push(`${p}=${v}`));
  return { ...out, problems };
};

describe('list query parsing', () => {
  it('reads every parameter occurrence as one condition, bare aliases as exact, tags by colon', () => {
    const p = parse({ name: ['a', 'b'], 'comment.present': [''], tag: ['env', 'env:Prod'], 'tag-match': ['ANY'], search: ['  x  '] });
    expect(p.conditions).toEqual([
      { field: 'name', op: 'exact', values: ['a.example.com'] },
      { field: 'name', op: 'exact', values: ['b.example.com'] },
      { field: 'comment', op: 'present', values: [''] },
    ]);
    expect(p.tags).toEqual({ match: 'any', conditions: [{ op: 'present', tag: 'env' }, { op: 'exact', tag: 'env', value: 'Prod' }] });
    expect(p.search).toBe('x');
    expect(p.problems).toEqual([]);
  });

  it('reads deprecated forms by api date', () => {
    expect(parse({ name: ['contains:Foo'] }, '2025-02-20')).toMatchObject({ conditions: [{ field: 'name', op: 'contains', values: ['foo'] }], deprecated: [{ id: 'dns-records-list-filter-forms' }] });
    expect(parse({ name: ['contains:foo'] }, '2025-02-21')).toMatchObject({ conditions: [{ field: 'name', op: 'exact', values: ['contains:foo.example.com'] }], deprecated: [] });
    expect(parse({ content: ['a,b'] }, '2025-05-22')).toMatchObject({ conditions: [{ field: 'content', op: 'exact', values: ['a', 'b'] }], deprecated: [{ part: 'multi-value' }] });
    expect(parse({ content: ['a,b'] }, '2025-05-23').conditions).toEqual([{ field: 'content', op: 'exact', values: ['a,b'] }]);
    expect(parse({ type: ['contains:aa'] }, '2025-02-20').conditions).toEqual([{ field: 'type', op: 'contains', values: ['AA'] }]);
    expect(parse({ type: ['contains:aa'] }, '2025-02-21').problems).toEqual(['type=contains:aa']);
  });

  it('reports bad keys and values', () => {
    expect(parse({ 'name.like': ['x'], 'tag.exact': ['x'], 'tag.present': ['a:b'], proxied: ['1'], tag_match: ['none'], type: ['X'] }).problems)
      .toEqual(['name.like=x', 'type=X', 'proxied=1', 'tag.exact=x', 'tag.present=a:b', 'tag_match=none']);
  });

  it('normalizes names: a trailing dot anchors the end', () => {
    expect(nameComparison('contains', 'W.Example.', 'example.com')).toEqual({ op: 'endswith', value: 'w.example' });
    expect(nameComparison('startswith', 'www.example.com.', 'example.com')).toEqual({ op: 'exact', value: 'www.example.com' });
    expect(nameComparison('exact', '@', 'example.com')).toEqual({ op: 'exact', value: 'example.com' });
  });

  it('gives TXT stored forms and escapes LIKE wildcards', () => {
    expect(txtStoredForm('exact', 'tok')).toBe('"tok"');
    expect(txtStoredForm('exact', '"tok"')).toBeUndefined();
    expect(txtStoredForm('startswith', 'a"b')).toBe('"a\\"b');
    expect(txtStoredForm('endswith', 'x')).toBe('x"');
    expect(escapeLike('a%b_c\\')).toBe('a\\%b\\_c\\\\');
  });
});
