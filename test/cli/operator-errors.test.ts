/**
 * Every operator mistake at start is one line on stderr naming the flag (or variable) and what to do, exit
 * status 2, no stack trace: unknown flags (with the closest known one), a flag without its value, bad
 * addresses, ports in use (TCP and UDP), a data folder that is a file, a malformed or unreachable database,
 * an unreachable blob store. An unknown STRATUS_ variable is a warning.
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../dns-server/ports.js';
import { runCli, type CliResult } from './run-cli.js';

let dir: string;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cli-errors-')); });
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

/** Port-0 listeners in a fresh data folder, plus `args`. */
const serve = (args: string[], env: Record<string, string> = {}) => runCli(['serve', '--data-dir', fs.mkdtempSync(path.join(dir, 'd-')),
  '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0', '--dns-workers', '0', '--edge', 'off', '--admin', '127.0.0.1:0', ...args], env);

/** Exit 2 and exactly one line on stderr (besides Node's own warnings) that matches `line`. */
function oneLine(r: CliResult, line: RegExp): void {
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('stratus'));
  expect(r.code, r.stderr).toBe(2);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('stratus serve refuses, in one line with exit 2', () => {
  it('an unknown flag, naming the closest known one', async () => {
    oneLine(await serve(['--databse-url', 'postgres://x@127.0.0.1/x']), /^stratus: unknown flag --databse-url \(did you mean --database-url\?\); see stratus serve --help$/);
    oneLine(await serve(['--bogus']), /^stratus: unknown flag --bogus; see stratus serve --help$/);
    oneLine(await runCli(['user', 'add', '--emial', 'a@example.com']), /unknown flag --emial \(did you mean --email\?\)/);
    oneLine(await serve(['extra']), /^stratus: stratus serve takes no arguments, got "extra"/);
    oneLine(await runCli(['srve']), /^stratus: unknown command "srve" \(did you mean serve\?\)/);
  });

  it('a flag that needs a value and has none', async () => {
    oneLine(await serve(['--database-url']), /^stratus: --database-url needs a value \(URL\)$/);
  });

  it('a bad address and an address this machine does not have', async () => {
    oneLine(await serve(['--http', 'localhost']), /^stratus: --http must be HOST:PORT, got "localhost"$/);
    oneLine(await serve(['--s3', '127.0.0.1:70000']), /^stratus: --s3 port must be at most 65535/);
    oneLine(await serve(['--http', '192.0.2.77:8080']), /^stratus: cannot start: --http 192\.0\.2\.77:8080 is not an address of this machine \(EADDRNOTAVAIL\)\. Choose other addresses/);
  });

  it('a TCP port in use (--http) and a UDP port in use (--dns)', async () => {
    const tcp = net.createServer();
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const busy = (tcp.address() as net.AddressInfo).port;
    try {
      oneLine(await serve(['--http', `127.0.0.1:${busy}`]), new RegExp(`^stratus: cannot start: --http 127\\.0\\.0\\.1:${busy} is in use \\(EADDRINUSE\\)\\. Stop what holds them`));
      // The admin listener's port is named as its own flag, not --http's (both on 127.0.0.1).
      oneLine(await serve(['--admin', `127.0.0.1:${busy}`]), new RegExp(`^stratus: cannot start: --admin 127\\.0\\.0\\.1:${busy} is in use \\(EADDRINUSE\\)\\. Stop what holds them`));
    } finally {
      tcp.close();
    }
    const udpPort = await freePort();
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(udpPort, '127.0.0.1', resolve));
    try {
      oneLine(await serve(['--dns', `127.0.0.1:${udpPort}`]), new RegExp(`^stratus: cannot start: --dns 127\\.0\\.0\\.1:${udpPort} is in use \\(UDP: EADDRINUSE\\)\\. Stop what holds them`));
    } finally {
      udp.close();
    }
  });

  it('a data folder that is a file, a bad log level, short credentials', async () => {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    // Port-0 listeners: the default ports may be held by something else on the machine (they are tried first).
    const ports = ['--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0', '--edge', 'off', '--admin', '127.0.0.1:0'];
    oneLine(await runCli(['serve', '--data-dir', file, ...ports]), /^stratus: --data-dir .*a-file is not a folder/);
    oneLine(await runCli(['serve', '--data-dir', path.join(file, 'below'), ...ports]), /^stratus: --data-dir .*below is not a folder/);
    oneLine(await serve(['--log-level', 'loud']), /^stratus: --log-level must be one of/);
    oneLine(await serve(['--auth-email', 'a@example.com', '--auth-key', 'abc']), /^stratus: --auth-key must be at least 37 characters/);
  });

  it('a malformed or unreachable database and an unreachable blob store', async () => {
    oneLine(await serve(['--database-url', 'mysql://db/x']), /^stratus: --database-url must start with postgres:\/\//);
    oneLine(await serve(['--database-url', 'not a url']), /^stratus: --database-url must be a URL/);
    const closed = await freePort();
    oneLine(await serve(['--database-url', `postgres://nobody@127.0.0.1:${closed}/x`]), new RegExp(`^stratus: --database-url: cannot use the database at 127\\.0\\.0\\.1:${closed}/x: .*ECONNREFUSED`));
    oneLine(await serve(['--blobs-s3-bucket', 'b', '--blobs-s3-endpoint', `http://127.0.0.1:${closed}`, '--blobs-s3-access-key-id', 'a', '--blobs-s3-secret-access-key', 'b']),
      new RegExp(`^stratus: --blobs-s3-bucket: cannot use bucket b at http://127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED`));
  });

  it('warns (and goes on) of an unknown STRATUS_ variable', async () => {
    const r = await serve(['--log-level', 'nope'], { STRATUS_DATABSE_URL: 'postgres://x', STRATUS_HTTP: '127.0.0.1:0', STRATUS_WORKERD_V8_FLAGS: '' });
    expect(r.stderr).toContain('stratus: warning: unknown environment variable STRATUS_DATABSE_URL is ignored (did you mean STRATUS_DATABASE_URL?)');
    // the edge's workerd V8 flags are a variable of their own, not a flag: no warning
    expect(r.stderr).not.toContain('STRATUS_WORKERD_V8_FLAGS');
  });
});
