/**
 * The compiled `stratus serve` in a child process, for tests of what runs only from compiled code (the DNS
 * thread is a worker thread): the project's own build, dist/ (`npm test` builds it first; after a change to
 * src/, run `npm run build` before such a test), started on free ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stopChild } from './stop-child.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A compiled build of the project. */
export interface CompiledBuild {
  dir: string;
}

/** The project's build (dist/); throws, naming the command, when there is none. */
export function projectBuild(): CompiledBuild {
  const dir = path.join(ROOT, 'dist');
  if (!fs.existsSync(path.join(dir, 'cli.js'))) throw new Error(`no build in ${dir}: run \`npm run build\` first`);
  return { dir };
}

/** A running compiled server. */
export interface CompiledServer {
  child: ChildProcess;
  /** The v4 API's address as the banner prints it (`http://127.0.0.1:PORT`). */
  base: string;
  dnsPort: number;
  /** The admin listener's address. */
  admin: string;
  /** What the server printed so far (its last 2,000,000 characters). */
  output(): string;
  /** Sends SIGTERM (unless it has exited) and waits for the exit. */
  stop(): Promise<void>;
}

/** Options of {@link startCompiled}. */
export interface CompiledServerOptions {
  dataDir: string;
  email: string;
  key: string;
  /** More flags of `stratus serve`. */
  flags?: string[];
  /** More environment variables. */
  env?: Record<string, string>;
}

/** Starts `stratus serve` from `build` with the v4 API, DNS, S3 and admin listeners on free ports, and waits for them. */
export async function startCompiled(build: CompiledBuild, opts: CompiledServerOptions): Promise<CompiledServer> {
  let out = '';
  const child = spawn(process.execPath, [path.join(build.dir, 'cli.js'), 'serve', '--data-dir', opts.dataDir, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0',
    '--s3', '127.0.0.1:0', '--admin', '127.0.0.1:0', '--edge', 'off', '--auth-email', opts.email, '--auth-key', opts.key, '--log-level', 'info', ...(opts.flags ?? [])],
  { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  const keep = (d: Buffer): void => { out = (out + d.toString()).slice(-2_000_000); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const listening = (): boolean => /DNS listening on 127\.0\.0\.1:(\d+)/.test(out) && /admin listening on (http[^\s"]+)/.test(out);
  for (const end = Date.now() + 60_000; !listening();) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`stratus did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    base: /v4 API listening on (http[^\s"]+)/.exec(out)![1]!,
    dnsPort: Number(/DNS listening on 127\.0\.0\.1:(\d+)/.exec(out)![1]),
    admin: /admin listening on (http[^\s"]+)/.exec(out)![1]!,
    output: () => out,
    stop: () => stopChild(child),
  };
}
