import { describe, expect, it } from 'vitest';
import { proxyClient } from './https-edge.js';

describe('the PROXY protocol line nginx leads a connection with', () => {
  it("names the client's address (IPv4 and IPv6); UNKNOWN or anything else names none", () => {
    expect(proxyClient('PROXY TCP4 192.0.2.7 127.0.0.1 50412 443')).toBe('192.0.2.7');
    expect(proxyClient('PROXY TCP6 2001:db8::1 ::1 50412 443')).toBe('2001:db8::1');
    for (const bad of ['PROXY UNKNOWN', 'PROXY TCP4 192.0.2.7', 'GET / HTTP/1.1', 'PROXY TCP4 a b c d']) expect(proxyClient(bad), bad).toBeUndefined();
  });
});
