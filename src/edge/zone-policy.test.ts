import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { tlsAtLeast, zonePolicy } from './zone-policy.js';
import { clientHelloComplete, clientHelloServerName } from './client-hello.js';

describe('zonePolicy', () => {
  it('fills in the catalogue defaults: ssl flexible (a new zone serves HTTPS), no redirect, TLS 1.0, no headers', () => {
    expect(zonePolicy('z', 'a', '{}')).toEqual({ zoneId: 'z', accountId: 'a', ssl: 'flexible', alwaysUseHttps: false, minTls: 'TLSv1', tls13: true, httpsRewrites: false, httpsHeaders: {} });
  });

  it('reads stored values and builds the HSTS header', () => {
    const stored = JSON.stringify({
      ssl: { value: 'strict' }, always_use_https: { value: 'on' }, min_tls_version: { value: '1.2' },
      security_header: { value: { strict_transport_security: { enabled: true, max_age: 86400, include_subdomains: true, preload: false, nosniff: true } } },
    });
    expect(zonePolicy('z', 'a', stored)).toMatchObject({
      ssl: 'strict', alwaysUseHttps: true, minTls: 'TLSv1.2',
      httpsHeaders: { 'strict-transport-security': 'max-age=86400; includeSubDomains', 'x-content-type-options': 'nosniff' },
    });
  });

  it('adds no header when HSTS is disabled, even with nosniff set', () => {
    const stored = JSON.stringify({ security_header: { value: { strict_transport_security: { enabled: false, max_age: 1, nosniff: true } } } });
    expect(zonePolicy('z', 'a', stored).httpsHeaders).toEqual({});
  });

  it('compares TLS versions', () => {
    expect(tlsAtLeast('TLSv1.3', 'TLSv1.2')).toBe(true);
    expect(tlsAtLeast('TLSv1.2', 'TLSv1.3')).toBe(false);
    expect(tlsAtLeast(null, 'TLSv1')).toBe(false);
  });
});

describe('clientHelloServerName', () => {
  it('reads the server name of a real ClientHello', async () => {
    const net = await import('node:net');
    const hello = await new Promise<Buffer>((resolve) => {
      const server = net.createServer((s) => s.once('data', (d: Buffer) => { resolve(d); s.destroy(); server.close(); }));
      server.listen(0, '127.0.0.1', () => {
        const c = tls.connect({ port: (server.address() as import('node:net').AddressInfo).port, host: '127.0.0.1', servername: 'WWW.Example.test' });
        c.on('error', () => undefined);
      });
    });
    expect(clientHelloComplete(hello)).toBe(true);
    expect(clientHelloServerName(hello)).toBe('www.example.test');
    expect(clientHelloComplete(hello.subarray(0, 10))).toBe(false);
    expect(clientHelloServerName(hello.subarray(0, 20))).toBeUndefined();
    expect(clientHelloServerName(Buffer.from('GET / HTTP/1.1\r\n'))).toBeUndefined();
    expect(clientHelloComplete(Buffer.from('GET / HTTP/1.1\r\n'))).toBe(true);
  });
});
