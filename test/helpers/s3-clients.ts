/**
 * Running S3 command-line clients (s3cmd, rclone, aws-cli) against a test server: finding the binaries,
 * running them with a clean environment (no AWS_* / RCLONE_* variables, no proxies, never the user's own
 * configuration), and the files they upload.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The first executable among `candidates` (absolute paths) or named `name` on PATH; undefined when none. */
export function findTool(name: string, candidates: string[] = []): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const file of [...candidates, ...dirs.map((d) => path.join(d, name))]) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** The environment of a client: the process's, without anything that would configure an S3 client or a proxy. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(AWS_|RCLONE_|S3CMD)/i.test(k) || /^(https?|all|no)_proxy$/i.test(k)) continue;
    env[k] = v;
  }
  return { ...env, NO_PROXY: '127.0.0.1,localhost', ...extra };
}

/** What a finished command printed and its exit code. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (30 s at most) and reports its exit code instead of throwing. */
export function run(file: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { env, cwd, timeout: 30_000, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr: err && code === -1 ? `${stderr}\n${err.message}` : stderr });
    });
  });
}

/** Runs a command that must succeed; its stdout, or an error carrying everything it printed. */
export async function runOk(file: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<string> {
  const r = await run(file, args, env, cwd);
  if (r.code !== 0) throw new Error(`${path.basename(file)} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Hex SHA-256 of a file's bytes. */
export function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Paths (relative, `/`-separated) of a small tree whose names need encoding: spaces, Unicode, `+&=?%#~'`. */
export const TREE_FILES = [
  'a/one.txt',
  'sub dir/two words.txt',
  'sub dir/ünï/δρ 漢字.txt',
  'plus+amp&eq=q?.txt',
  "100% done #1 ~it's.txt",
];

/** Writes the files a client uploads into `dir`: `small.txt`, `big.bin` (12 MiB of random bytes) and `tree/`. */
export function writeFixtures(dir: string): void {
  fs.writeFileSync(path.join(dir, 'small.txt'), 'hello, small file\n');
  fs.writeFileSync(path.join(dir, 'big.bin'), randomBytes(12 * 1024 * 1024));
  for (const [i, rel] of TREE_FILES.entries()) {
    const file = path.join(dir, 'tree', rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `file ${i}: ${rel}\n`);
  }
}

/** Every file under `dir` (relative, `/`-separated, sorted) with its SHA-256. */
export function treeDigest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else out[rel] = sha256File(path.join(dir, rel));
    }
  };
  walk('');
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
