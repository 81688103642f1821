import { describe, expect, it } from 'vitest';
import type { BucketCorsRule } from '../store/index.js';
import { corsHeaders, preflightRule, requestedHeaders, requestRule, wildcardMatch } from './cors.js';

const rule = (over: Partial<BucketCorsRule>): BucketCorsRule => ({ allowedOrigins: [], allowedMethods: [], allowedHeaders: [], exposeHeaders: [], ...over });

describe('wildcardMatch', () => {
  it('matches exactly or with one * for any run of characters, ignoring case', () => {
    expect(wildcardMatch('https://a.test', 'https://A.test')).toBe(true);
    expect(wildcardMatch('https://a.test', 'https://a.test:8443')).toBe(false);
    expect(wildcardMatch('*', 'http://anything')).toBe(true);
    expect(wildcardMatch('https://*.example.com', 'https://app.example.com')).toBe(true);
    expect(wildcardMatch('https://*.example.com', 'https://a.b.example.com')).toBe(true);
    expect(wildcardMatch('https://*.example.com', 'https://example.com')).toBe(false);
    expect(wildcardMatch('https://*.example.com', 'http://app.example.com')).toBe(false);
    expect(wildcardMatch('x-amz-*', 'x-amz-date')).toBe(true);
    expect(wildcardMatch('ab*ba', 'aba')).toBe(false);
  });
});

describe('rule evaluation', () => {
  const rules = [
    rule({ id: 'put', allowedOrigins: ['https://app.test'], allowedMethods: ['PUT'], allowedHeaders: ['content-type', 'x-amz-*'] }),
    rule({ id: 'read', allowedOrigins: ['*'], allowedMethods: ['GET', 'HEAD'], exposeHeaders: ['ETag'], maxAgeSeconds: 60 }),
  ];

  it('takes the first rule allowing origin, method and every requested header', () => {
    expect(preflightRule(rules, { origin: 'https://app.test', method: 'PUT', headers: ['content-type', 'x-amz-date'] })?.id).toBe('put');
    expect(preflightRule(rules, { origin: 'https://app.test', method: 'PUT', headers: ['authorization'] })).toBeUndefined();
    expect(preflightRule(rules, { origin: 'https://other.test', method: 'PUT', headers: [] })).toBeUndefined();
    expect(preflightRule(rules, { origin: 'https://app.test', method: 'GET', headers: [] })?.id).toBe('read');
    expect(preflightRule(rules, { origin: 'https://x.test', method: 'GET', headers: ['range'] })).toBeUndefined();
    expect(requestRule(rules, 'https://x.test', 'HEAD')?.id).toBe('read');
    expect(requestRule(rules, 'https://x.test', 'DELETE')).toBeUndefined();
  });

  it('parses Access-Control-Request-Headers', () => {
    expect(requestedHeaders(' Content-Type ,X-Amz-Date,, ')).toEqual(['content-type', 'x-amz-date']);
    expect(requestedHeaders(null)).toEqual([]);
  });

  it('answers * for any origin, else the origin with credentials', () => {
    expect(corsHeaders(rules[1]!, 'https://x.test')).toEqual({
      'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD', 'access-control-expose-headers': 'ETag',
      'access-control-max-age': '60', vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    });
    expect(corsHeaders(rules[0]!, 'https://app.test', ['content-type'])).toMatchObject({
      'access-control-allow-origin': 'https://app.test', 'access-control-allow-credentials': 'true', 'access-control-allow-headers': 'content-type',
    });
  });
});
