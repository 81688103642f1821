import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nginxConfig, serverBody } from './nginx-config.js';
import { findNginx, findStreamModule, leavingNames } from './nginx-front.js';
import { tlsConfig, rangeSocket, type TlsName } from './tls-config.js';

const names = (certFile: string): TlsName[] => [
  { name: 'a.test', certFile, range: { min: 'TLSv1', max: 'TLSv1.3' }, hsts: 'max-age=60; includeSubDomains', nosniff: true },
  { name: '*.a.test', certFile, range: { min: 'TLSv1', max: 'TLSv1.3' }, hsts: 'max-age=60; includeSubDomains', nosniff: true },
  { name: '*.b.test', certFile: `${certFile}.b`, range: { min: 'TLSv1.2', max: 'TLSv1.2' } },
  { name: 'bad name;', certFile, range: { min: 'TLSv1', max: 'TLSv1.3' } },
];
const input = (dir: string, certFile: string) => ({ listen: { host: '127.0.0.1', port: 8443 }, dir, names: names(certFile), nodeSocket: `${dir}/node.sock`, bodyFile: `${dir}/body.conf` });

describe('nginx ending TLS: the configuration', () => {
  it('routes each server name to the listener of its TLS range, every other name to Node, and names each certificate\'s server', () => {
    const { stream, servers } = tlsConfig(input('/run/x', '/run/x/c.pem'));
    expect(stream).toContain('default unix:/run/x/node.sock;');
    expect(stream).toContain(`a.test unix:${rangeSocket('/run/x', { min: 'TLSv1', max: 'TLSv1.3' })};`);
    // a wildcard covers one label, as a certificate's does, ignoring case
    expect(stream).toContain(`"~*^[^.]+\\.b\\.test$" unix:/run/x/tls-TLSv1.2-TLSv1.2.sock;`);
    expect(stream).not.toContain('bad name');
    expect(servers).toContain('ssl_protocols TLSv1.2;');
    expect(servers).toContain('ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;');
    expect(servers).toContain('server_name a.test "~^[^.]+\\.a\\.test$";');
    expect(servers).toMatch(/listen unix:\/run\/x\/tls-TLSv1\.2-TLSv1\.2\.sock ssl proxy_protocol default_server;\s+# [^\n]+\s+ssl_reject_handshake on;/);
    expect(servers).toContain('    a.test "max-age=60; includeSubDomains";');
    expect(servers).toContain('    *.a.test nosniff;');
    expect(servers).toContain('real_ip_header proxy_protocol;');
    // a script's own HSTS header passes when its zone sets none, and is replaced when it does
    expect(servers).toContain('map $stratus_hsts $stratus_hsts_out { "" $upstream_http_strict_transport_security; default $stratus_hsts; }');
  });

  it('serves a name leaving its range by the range it left, without routing new connections there', () => {
    const narrow = { min: 'TLSv1.2', max: 'TLSv1.2' } as const;
    const { stream, servers } = tlsConfig({ ...input('/run/x', '/c.pem'), leaving: [{ name: 'a.test', certFile: '/c2.pem', range: narrow }] });
    expect(servers).toMatch(/listen unix:\/run\/x\/tls-TLSv1\.2-TLSv1\.2\.sock ssl proxy_protocol;\s+server_name a\.test;\s+ssl_certificate \/c2\.pem;/);
    expect(stream).toContain(`a.test unix:${rangeSocket('/run/x', { min: 'TLSv1', max: 'TLSv1.3' })};`);
    expect(stream).not.toContain('a.test unix:/run/x/tls-TLSv1.2-TLSv1.2.sock');
  });

  it('keeps a moved name leaving the range it left, with the certificate it has now, until it is back there or gone', () => {
    const wide = { min: 'TLSv1', max: 'TLSv1.3' } as const;
    const narrow = { min: 'TLSv1.2', max: 'TLSv1.3' } as const;
    const at = (range: typeof wide | typeof narrow, certFile = '/c.pem'): TlsName[] => [{ name: 'a.test', certFile, range }, { name: 'b.test', certFile: '/b.pem', range: wide }];
    const moved = leavingNames(at(wide), at(narrow, '/new.pem'), [], '/d');
    expect(moved).toEqual([{ name: 'a.test', certFile: '/new.pem', range: wide }]);
    // moved back before the old workers were gone: it now leaves the narrow range, and is served as usual by the wide one
    expect(leavingNames(at(narrow), at(wide), moved, '/d')).toEqual([{ name: 'a.test', certFile: '/c.pem', range: narrow }]);
    // no longer served by nginx at all: nothing to keep
    expect(leavingNames(at(narrow), [], moved, '/d')).toEqual([]);
    expect(leavingNames(at(wide), at(wide), [], '/d')).toEqual([]);
  });

  it('is a configuration nginx accepts (its stream module installed)', { skip: !findNginx() || !findStreamModule() }, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-tls-config-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '1', '-subj', '/CN=a.test'], { cwd: dir, stdio: 'pipe' });
      const certFile = path.join(dir, 'cert.pem');
      fs.writeFileSync(certFile, fs.readFileSync(path.join(dir, 'c.pem'), 'utf8') + fs.readFileSync(path.join(dir, 'k.pem'), 'utf8'));
      fs.copyFileSync(certFile, `${certFile}.b`);
      const settings = { dir, listen: { host: '127.0.0.1', port: 8080 }, slotSockets: [`${dir}/s0.sock`], routes: new Map(), maxRequestBytes: 1024, colo: 'STR', workers: 1 as const, secret: 'sec', user: process.getuid?.() === 0 ? os.userInfo().username : undefined };
      fs.writeFileSync(path.join(dir, 'body.conf'), serverBody(settings, true));
      const text = nginxConfig({ ...settings, tls: { module: findStreamModule()!, ...tlsConfig(input(dir, certFile)) } });
      fs.writeFileSync(path.join(dir, 'nginx.conf'), text);
      const out = execFileSync(findNginx()!, ['-t', '-q', '-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr'], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
      expect(out).toBe('');
      // the slow path over HTTPS vouches for the client's address and scheme with the runtime's secret
      expect(fs.readFileSync(path.join(dir, 'body.conf'), 'utf8')).toContain("proxy_set_header x-stratus-front 'sec';");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
