import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rayMap } from './nginx-config.js';
import { findNginx } from './nginx-front.js';

/** `count` requests over one kept-alive connection to nginx's Unix socket; their answers' bodies. */
async function raysOverOneConnection(socketPath: string, count: number): Promise<string[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const rays: string[] = [];
  for (let i = 0; i < count; i++) {
    rays.push(await new Promise<string>((resolve, reject) => {
      http.get({ socketPath, path: '/', agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => { body += c.toString(); });
        res.on('end', () => resolve(body));
      }).on('error', reject);
    }));
  }
  agent.destroy();
  return rays;
}

/** Waits until nginx accepts on `socket` (its file appears at bind, before nginx listens: a connection then is refused). */
async function until(socket: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; ;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const c = net.connect(socket, () => { c.destroy(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (accepted) return;
    if (Date.now() > deadline) throw new Error(`nothing accepts on ${socket}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the ray id nginx makes', () => {
  it('refuses an epoch that is not 16 hex characters', () => {
    expect(() => rayMap('xyz', 'STR')).toThrow(/ray epoch must be 16 hex characters, got "xyz"/);
  });

  it('is 16 hex characters and the colo, different for every request, connection and configuration load', { skip: !findNginx() }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-nginx-ray-'));
    const socket = path.join(dir, 's.sock');
    const seen: string[] = [];
    try {
      // two loads of the configuration: the connection counter restarts, the epoch (here one character apart) differs
      for (const epoch of ['0123456789abcdef', '0123456789abcdee']) {
        fs.rmSync(socket, { force: true });
        const file = path.join(dir, 'nginx.conf');
        fs.writeFileSync(file, `daemon off; master_process off; pid ${dir}/nginx.pid; error_log stderr error; events {}
http { access_log off; client_body_temp_path ${dir}/b; proxy_temp_path ${dir}/p; fastcgi_temp_path ${dir}/f; uwsgi_temp_path ${dir}/u; scgi_temp_path ${dir}/s;
${rayMap(epoch, 'STR')}
  split_clients "\${stratus_ray}" $split { 40% a; * b; }
  server { listen unix:${socket}; location / { return 200 "$stratus_ray $split"; } } }
`);
        const nginx = spawn(findNginx()!, ['-p', dir, '-c', file, '-e', 'stderr'], { stdio: 'ignore' });
        try {
          await until(socket);
          seen.push(...await raysOverOneConnection(socket, 100), ...await raysOverOneConnection(socket, 100));
        } finally {
          nginx.kill('SIGKILL');
          await new Promise((r) => nginx.once('exit', r));
        }
      }
      expect(seen).toHaveLength(400);
      for (const answer of seen) expect(answer).toMatch(/^[0-9a-f]{16}-STR [ab]$/);
      expect(new Set(seen.map((answer) => answer.split(' ')[0])).size).toBe(400);
      // a deployment's split (fast-routes.ts) hashes the ray: consecutive requests still spread by the percentages
      const share = seen.filter((answer) => answer.endsWith(' a')).length / seen.length;
      expect(share).toBeGreaterThan(0.3);
      expect(share).toBeLessThan(0.5);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
