import { describe, expect, it } from 'vitest';
import { clientAddress, fastFallbackRay, forwardingHeaders, newRayId } from './forwarding.js';

describe('forwarding headers', () => {
  it('sets the client address, appends X-Forwarded-For and CDN-Loop, and names the scheme and ray', () => {
    const h = forwardingHeaders(new Headers({ 'x-forwarded-for': '203.0.113.1', 'cf-connecting-ip': '6.6.6.6', host: 'a.example' }), '198.51.100.2', 'http', 'r-1');
    expect(Object.fromEntries(h)).toEqual({
      host: 'a.example', 'cf-connecting-ip': '198.51.100.2', 'x-real-ip': '198.51.100.2', 'x-forwarded-for': '203.0.113.1, 198.51.100.2',
      'x-forwarded-proto': 'http', 'cf-visitor': '{"scheme":"http"}', 'cf-ray': 'r-1', 'cf-ipcountry': 'XX', 'cdn-loop': 'cloudflare',
    });
  });

  it('keeps the headers of a request nginx already forwarded (its fast path), appending nothing again', () => {
    const incoming = new Headers({ 'x-forwarded-for': '203.0.113.1, 198.51.100.2', 'cdn-loop': 'other, cloudflare', 'cf-ray': 'r-2', host: 'a.example' });
    const h = forwardingHeaders(incoming, '198.51.100.2', 'http', 'r-2', true);
    expect(h.get('x-forwarded-for')).toBe('203.0.113.1, 198.51.100.2');
    expect(h.get('cdn-loop')).toBe('other, cloudflare');
    expect(h.get('cf-ray')).toBe('r-2');
  });

  it("trusts a request's cf-ray as nginx's fast path's only behind nginx", () => {
    const incoming = new Headers({ 'cf-ray': 'abc-STR' });
    expect(fastFallbackRay(incoming, true)).toBe('abc-STR');
    expect(fastFallbackRay(incoming, false)).toBeNull();
    expect(fastFallbackRay(new Headers(), true)).toBeNull();
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
