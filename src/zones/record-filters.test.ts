import { describe, expect, it } from 'vitest';
import { fullFilterName, parseRecordFilters } from './record-filters.js';

describe('record list filters', () => {
  it('expands names like record bodies do', () => {
    expect(fullFilterName('@', 'example.com')).toBe('example.com');
    expect(fullFilterName('WWW', 'example.com')).toBe('www.example.com');
    expect(fullFilterName('www.Example.com.', 'example.com')).toBe('www.example.com');
    expect(fullFilterName('_acme-challenge.www', 'example.com')).toBe('_acme-challenge.www.example.com');
  });

  it('parses the filters clients send, with defaults', () => {
    const q = parseRecordFilters({ type: ['TXT'], name: ['_acme-challenge.www.example.com'], content: ['tok'], per_page: ['1'] }, 'example.com');
    expect(q).toEqual({
      conditions: [
        { field: 'name', op: 'exact', values: ['_acme-challenge.www.example.com'] },
        { field: 'type', op: 'exact', values: ['TXT'] },
        { field: 'content', op: 'exact', values: ['tok'] },
      ],
      match: 'all', order: 'type', direction: 'asc', page: 1, perPage: 1,
    });
    expect(parseRecordFilters({}, 'example.com')).toMatchObject({ conditions: [], page: 1, perPage: 100 });
    expect(parseRecordFilters({ 'name.exact': ['a'], 'content.exact': ['x'], proxied: ['false'], per_page: ['5000000'] }, 'example.com').conditions.map((c) => c.field))
      .toEqual(['name', 'content', 'proxied']);
  });

  it('reports every bad parameter at once (1106)', () => {
    try {
      parseRecordFilters({ type: ['A', 'NOPE'], proxied: ['maybe'], page: ['0'], per_page: ['5000001'], order: ['size'], direction: ['up'], match: ['some'] }, 'example.com');
      expect.unreachable();
    } catch (e) {
      const err = e as { all(): { code: number; message: string }[] };
      expect(err.all().map((x) => x.code)).toEqual(Array(7).fill(1106));
      expect(err.all().map((x) => x.message).join('\n')).toMatch(/type "NOPE".*\n.*proxied "maybe"/);
    }
  });
});
