import { describe, expect, it } from 'vitest';
import { clientAddress, forwardingHeaders, newRayId } from './forwarding.js';

describe('forwarding headers', () => {
  it('sets the client address, appends X-Forwarded-For and CDN-Loop, and names the scheme and ray', () => {
    const h = forwardingHeaders(new Headers({ 'x-forwarded-for': '203.0.113.1', 'cf-connecting-ip': '6.6.6.6', host: 'a.example' }), '198.51.100.2', 'http', 'r-1');
    expect(Object.fromEntries(h)).toEqual({
      host: 'a.example', 'cf-connecting-ip': '198.51.100.2', 'x-real-ip': '198.51.100.2', 'x-forwarded-for': '203.0.113.1, 198.51.100.2',
      'x-forwarded-proto': 'http', 'cf-visitor': '{"scheme":"http"}', 'cf-ray': 'r-1', 'cf-ipcountry': 'XX', 'cdn-loop': 'cloudflare',
    });
  });

  it("reads workerd's clientIp forms", () => {
    expect(clientAddress('127.0.0.1:5555')).toBe('127.0.0.1');
    expect(clientAddress('[::1]:5555')).toBe('::1');
    expect(clientAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(clientAddress(undefined)).toBe('0.0.0.0');
  });

  it('makes unique ray ids of 16 hex digits and the location', () => {
    const a = newRayId('STR');
    const b = newRayId('STR');
    expect(a).toMatch(/^[0-9a-f]{16}-STR$/);
    expect(b).not.toBe(a);
  });
});
