/**
 * A start on busy addresses stops before anything is written, naming every busy address in one line (exit 2):
 * TCP ports held for --admin, --s3 and --edge and a UDP port held for --dns, all at once. The data folder is not
 * even made, so no credentials are generated; the next start, on the freed ports, is the first successful one
 * and prints the generated credentials.
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../dns-server/ports.js';
import { waitUntil } from '../faults/load.js';
import { runCli, startCli } from './run-cli.js';

let dir: string;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cli-busy-')); });
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

/** Holds a TCP port on 127.0.0.1 until released. */
async function holdTcp(port: number): Promise<() => Promise<void>> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Holds a UDP port on 127.0.0.1 until released. */
async function holdUdp(port: number): Promise<() => Promise<void>> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(port, '127.0.0.1', resolve));
  return () => new Promise<void>((resolve) => socket.close(() => resolve()));
}

describe('busy addresses at start', () => {
  it('are all named in one line, exit 2, before the data folder or credentials exist; the next start prints the credentials', async () => {
    const [http, dns, s3, admin, edge] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    const dataDir = path.join(dir, 'data');
    const args = ['serve', '--data-dir', dataDir, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${dns}`, '--s3', `127.0.0.1:${s3}`,
      '--admin', `127.0.0.1:${admin}`, '--edge', `127.0.0.1:${edge}`, '--dns-workers', '0', '--log-format', 'pretty'];
    const release = [await holdTcp(admin), await holdUdp(dns), await holdTcp(s3), await holdTcp(edge)];
    let failed;
    try {
      failed = await runCli(args);
    } finally {
      for (const r of release) await r();
    }
    expect(failed.code, failed.stderr).toBe(2);
    expect(failed.stdout).toBe('');
    const lines = failed.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toEqual([
      `stratus: cannot start: --admin 127.0.0.1:${admin} is in use (EADDRINUSE); --dns 127.0.0.1:${dns} is in use (UDP: EADDRINUSE); `
      + `--s3 127.0.0.1:${s3} is in use (EADDRINUSE); --edge 127.0.0.1:${edge} is in use (EADDRINUSE). `
      + 'Stop what holds them or choose other addresses (port 0 picks a free one; off turns --s3, --edge and --admin off)',
    ]);
    expect(fs.existsSync(dataDir)).toBe(false);

    const running = await startCli(args);
    try {
      await waitUntil(() => /generated S3 credentials/.test(running.output()), 60_000, 'the generated credentials to be printed');
      expect(running.output()).toMatch(/stratus: generated admin credentials \(saved in .*credentials\.json[^\n]*\n {2}X-Auth-Email: admin@example\.com\n {2}X-Auth-Key: {3}[0-9a-f]{37}\n/);
      const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as { key: string };
      expect(running.output()).toContain(saved.key);
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  it('an address given to two listeners is named as such', async () => {
    const port = await freePort();
    const r = await runCli(['serve', '--data-dir', path.join(dir, 'twice'), '--http', `127.0.0.1:${port}`, '--s3', `127.0.0.1:${port}`,
      '--dns', '127.0.0.1:0', '--admin', 'off', '--edge', 'off', '--dns-workers', '0']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(`stratus: cannot start: --s3 127.0.0.1:${port} is also --http's address. Choose other addresses (port 0 picks a free one; off turns --s3, --edge and --admin off)\n`);
    expect(fs.existsSync(path.join(dir, 'twice'))).toBe(false);
  });
});
