/**
 * Runs the real wrangler CLI (node_modules/wrangler) against a test server's v4 API: `CLOUDFLARE_API_BASE_URL`
 * points at it, credentials and the account come from the environment, metrics are off, and it runs in a
 * temporary folder of its own (no wrangler.toml, its own config home).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const WRANGLER = path.resolve(import.meta.dirname, '../../node_modules/wrangler/bin/wrangler.js');

/** What a wrangler run printed and how it ended. */
export interface WranglerRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Credentials wrangler uses: an API token, or a global key with its e-mail. */
export type WranglerAuth = { token: string } | { email: string; key: string };

/** Runs `wrangler <args>` against `apiBase` for `accountId`; `input` is written to its standard input. */
export function wrangler(apiBase: string, accountId: string, auth: WranglerAuth, args: string[], opts: { cwd?: string } = {}): Promise<WranglerRun> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-wrangler-home-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'),
    CLOUDFLARE_API_BASE_URL: apiBase, CLOUDFLARE_ACCOUNT_ID: accountId, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1',
    ...('token' in auth ? { CLOUDFLARE_API_TOKEN: auth.token } : { CLOUDFLARE_EMAIL: auth.email, CLOUDFLARE_API_KEY: auth.key }),
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [WRANGLER, ...args], { env, cwd: opts.cwd ?? home, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      fs.rmSync(home, { recursive: true, force: true });
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
