import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiEnv } from '../context.js';
import { announceDeprecation, deprecationMiddleware } from './deprecation.js';

function app(apiDate: string): Hono<ApiEnv> {
  const a = new Hono<ApiEnv>();
  a.use('*', async (c, next) => { c.set('apiDate', apiDate); c.set('messages', []); await next(); });
  a.use('*', deprecationMiddleware());
  a.get('/client/v4/zones/:zone_id/dns_records', (c) => {
    announceDeprecation(c, 'dns-records-list-filter-forms', 'multi-value', { zone_id: c.req.param('zone_id') });
    return c.json({ messages: c.get('messages') });
  });
  a.get('/client/v4/zones/:zone_id/settings/brotli', (c) => c.json({}));
  return a;
}

describe('deprecation signalling', () => {
  it('announces a used old form with headers and a messages notice', async () => {
    const res = await app('2025-03-01').request('/client/v4/zones/z/dns_records');
    expect(res.headers.get('deprecation')).toBe('@1740096000');
    expect(res.headers.get('sunset')).toBe('Fri, 23 May 2025 00:00:00 GMT');
    const body = (await res.json()) as { messages: { code: number; message: string }[] };
    expect(body.messages[0]!.code).toBe(7102);
    expect(body.messages[0]!.message).toContain('2025-05-23');
  });

  it('adds route headers only while a served row is deprecated', async () => {
    expect((await app('2024-08-14').request('/client/v4/zones/z/settings/brotli')).headers.get('deprecation')).toBeNull();
    const on = await app('2024-08-15').request('/client/v4/zones/z/settings/brotli');
    expect(on.headers.get('deprecation')).toBe('@1723680000');
    expect(on.headers.get('sunset')).toBeNull();
  });
});
