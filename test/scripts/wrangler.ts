/**
 * Runs the real wrangler CLI (node_modules/wrangler) against a test server, in a project folder of its own,
 * the way a user points it at Stratus: CLOUDFLARE_API_BASE_URL, credentials from the environment, no
 * metrics, CI mode (no prompts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestServer } from '../helpers/server.js';

const WRANGLER = path.resolve(import.meta.dirname, '../../node_modules/wrangler/bin/wrangler.js');

/** Credentials wrangler uses: the global key pair or an API token. */
export type WranglerAuth = { email: string; key: string } | { token: string };

/** The outcome of one wrangler run. */
export interface WranglerRun { code: number; stdout: string; stderr: string }

/** A temporary project folder with the given files (paths relative to it). */
export function makeProject(files: Record<string, string | Uint8Array>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-wrangler-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** Runs `wrangler <args>` in `cwd` (with `input` on stdin); never throws on a non-zero exit. */
export function wrangler(server: TestServer, accountId: string, auth: WranglerAuth, cwd: string, args: string[], input = ''): Promise<WranglerRun> {
  const home = path.join(cwd, '.home');
  fs.mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    CLOUDFLARE_API_BASE_URL: server.apiBase,
    CLOUDFLARE_ACCOUNT_ID: accountId,
    WRANGLER_SEND_METRICS: 'false',
    CI: 'true',
    NO_COLOR: '1',
    ...('token' in auth ? { CLOUDFLARE_API_TOKEN: auth.token } : { CLOUDFLARE_EMAIL: auth.email, CLOUDFLARE_API_KEY: auth.key }),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Fails with wrangler's own output when the run did not succeed. */
export function expectSuccess(run: WranglerRun): WranglerRun {
  if (run.code !== 0) throw new Error(`wrangler exited ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
  return run;
}
