import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { frontWorkerCount, nginxConfig, slotUpstream } from './nginx-config.js';
import { findNginx } from './nginx-front.js';

const settings = (routes: Map<string, number>) => ({
  dir: '/tmp/x', listen: { host: '127.0.0.1', port: 8080 }, slotSockets: ['/tmp/x/s0.sock', '/tmp/x/s1.sock', '/tmp/x/s2.sock'],
  routes, maxRequestBytes: 1024, colo: 'STR', workers: 1 as const,
});

describe('the nginx front door configuration', () => {
  it('runs one nginx worker per two cores, at least one', () => {
    expect([1, 2, 3, 4, 16, 64].map(frontWorkerCount)).toEqual([1, 1, 1, 2, 8, 32]);
    expect(nginxConfig({ ...settings(new Map()), workers: frontWorkerCount(8) })).toContain('worker_processes 4;');
  });

  it('maps learned hostnames to their slot, leaves out odd names and unknown slots, and sends the rest to slot 0', () => {
    const text = nginxConfig(settings(new Map([['www.a.test', 1], ['b.test', 2], ['bad name;', 1], ['c.test', 7], ['d.test', 0]])));
    expect(text).toContain(`    www.a.test ${slotUpstream(1)};`);
    expect(text).toContain(`    b.test ${slotUpstream(2)};`);
    expect(text).toContain(`default ${slotUpstream(0)};`);
    expect(text).not.toContain('bad name');
    expect(text).not.toContain('c.test');
    expect(text).not.toContain('d.test');
    expect(text).toContain('client_max_body_size 1024;');
    expect(text).toContain('listen 127.0.0.1:8080 default_server;');
  });

  it('is a configuration nginx accepts, error pages and access log included', { skip: !findNginx() }, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-nginx-config-'));
    try {
      const file = path.join(dir, 'nginx.conf');
      const text = nginxConfig({ ...settings(new Map([['www.a.test', 1]])), dir, accessLog: path.join(dir, 'access.log') });
      // the runtime's record header is logged from the upstream's answer only, and hidden from the client
      expect(text).toContain('"r":"$upstream_http_x_stratus_record"');
      expect(text).toContain('proxy_hide_header x-stratus-record;');
      expect(text).toContain(`access_log ${path.join(dir, 'access.log')} stratus buffer=64k flush=100ms;`);
      fs.writeFileSync(file, text);
      const out = execFileSync(findNginx()!, ['-t', '-p', dir, '-c', file, '-e', 'stderr'], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
      expect(out).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
