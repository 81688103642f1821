import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { RecordValidationError, validateRecordBody, type RecordBodyContext } from './record-body.js';
import type { RecordWarning } from './record-name.js';

const ctx: RecordBodyContext = { zoneName: 'example.com', apiDate: '2025-06-01', serviceRanges: [], plan: { ...loadConfig({}, {}).plan, commentMaxLength: 10, tagsPerRecord: 2, minTtl: 60 } };
const ok = (body: Record<string, unknown>) => validateRecordBody(body, ctx, []);
const codes = (body: Record<string, unknown>): number[] => {
  try { ok(body); return []; } catch (e) {
    expect(e).toBeInstanceOf(RecordValidationError);
    return (e as RecordValidationError).all().map((x) => x.code);
  }
};

describe('validateRecordBody', () => {
  it('fills defaults and normalizes', () => {
    expect(ok({ type: 'A', name: 'WWW', content: '192.0.2.1' })).toEqual({
      name: 'www.example.com', type: 'A', content: '192.0.2.1', data: null, priority: null, ttl: 1, proxied: false, comment: null, tags: [], settings: {},
    });
    expect(ok({ type: 'A', name: '@', content: '192.0.2.1', proxied: true, ttl: 300 })).toMatchObject({ name: 'example.com', proxied: true, ttl: 1 });
    expect(ok({ type: 'CNAME', name: 'x', content: 'y.example.net', comment: '', tags: ['A:b', 'a:b'], settings: { flatten_cname: false, ipv4_only: true } }))
      .toMatchObject({ comment: null, tags: ['a:b'], settings: { ipv4_only: true } });
  });

  it('applies the TTL rules: 1, or minTtl..86400', () => {
    expect(ok({ type: 'TXT', name: 'a', content: 'x', ttl: 60 }).ttl).toBe(60);
    expect(ok({ type: 'TXT', name: 'a', content: 'x', ttl: 86400 }).ttl).toBe(86400);
    for (const ttl of [0, 2, 59, 86401, 1.5, '300']) expect(codes({ type: 'TXT', name: 'a', content: 'x', ttl })).toEqual([9021]);
  });

  it('refuses SOA, unknown and missing types with clear codes', () => {
    expect(codes({ type: 'SOA', name: '@', content: 'x' })).toEqual([1108]);
    expect(codes({ type: 'SPF', name: '@', content: 'x' })).toEqual([1107]);
    expect(codes({ name: '@', content: 'x' })).toEqual([1107]);
  });

  it('collects every problem of a body', () => {
    expect(codes({ type: 'MX', name: 'a', content: 'mx.example.net', priority: 1, proxied: true, ttl: 5, comment: 'x'.repeat(11), tags: ['a:1', 'b:2', 'c:3'], settings: { bogus: true } }))
      .toEqual([9004, 9021, 9313, 9300, 1111]);
  });

  it('reports underscores in host names as warnings, not errors', () => {
    const warnings: RecordWarning[] = [];
    expect(validateRecordBody({ type: 'A', name: 'a_b', content: '192.0.2.1' }, ctx, warnings).name).toBe('a_b.example.com');
    expect(warnings).toHaveLength(1);
  });
});
