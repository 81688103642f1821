/**
 * `stratus serve` as an operator runs it: `node dist/cli.js serve` in a child process (run `npm run build`
 * first), on port 0 listeners, with known admin credentials. The tests watch its exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TEST_EMAIL, TEST_KEY, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET } from '../helpers/server.js';
import { waitUntil } from './load.js';

/** A running child `stratus serve`. */
export interface SpawnedStratus {
  child: ChildProcess;
  apiBase: string;
  s3Url: string;
  dnsPort: number;
  /** The admin listener (`--admin`), unless turned off. */
  adminUrl?: string;
  email: string;
  key: string;
  /** Everything it printed (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
}

/** The CLI entry of the build. */
export const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');

/**
 * Starts `stratus serve` with `flags` (plus port-0 listeners and the test credentials); `viaBin` runs the build's
 * executable itself (its first line chooses the interpreter and its flags) instead of `node dist/cli.js`.
 */
export async function spawnStratus(dataDir: string, flags: Record<string, string> = {}, viaBin = false): Promise<SpawnedStratus> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
  const all: Record<string, string> = {
    'data-dir': dataDir, http: '127.0.0.1:0', dns: '127.0.0.1:0', s3: '127.0.0.1:0', admin: '127.0.0.1:0', edge: 'off', 'dns-workers': '0',
    'auth-email': TEST_EMAIL, 'auth-key': TEST_KEY, 's3-access-key-id': TEST_S3_ACCESS_KEY_ID, 's3-secret-access-key': TEST_S3_SECRET,
    // Limits on abuse off unless a test sets them: load and fault tests make thousands of requests from one address.
    'log-level': 'warn', 'rate-limit': '0', 'auth-failure-limit': '0', ...flags,
  };
  const args = [CLI, 'serve', ...Object.entries(all).flatMap(([k, v]) => [`--${k}`, v])];
  const child = viaBin ? spawn(CLI, args.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let code: number | string | undefined;
  void exited.then((c) => { code = c; });
  // The banner's lines arrive as separate writes: wait for the last one these flags print (admin, then edge, then S3).
  const last = all.admin !== 'off' ? /admin listening on http/ : all.edge !== 'off' ? /edge listening on http/ : /S3 API listening/;
  await waitUntil(() => code !== undefined || last.test(out), 60_000, 'stratus to start');
  if (code !== undefined) throw new Error(`stratus exited (${code}) while starting:\n${out}`);
  const apiBase = /v4 API listening on (http[^\s"]+)/.exec(out)![1]!;
  const s3Url = /S3 API listening on (http[^\s"]+)/.exec(out)![1]!;
  const adminUrl = /admin listening on (http[^\s"]+)/.exec(out)?.[1];
  const dnsPort = Number(/DNS listening on \S+:(\d+)/.exec(out)![1]);
  return { child, apiBase, s3Url, dnsPort, ...(adminUrl ? { adminUrl } : {}), email: TEST_EMAIL, key: TEST_KEY, output: () => out, exited };
}
