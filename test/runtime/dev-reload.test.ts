/**
 * `stratus dev` (the built CLI, dist/) reloads what changes on disk, as wrangler dev does: the entry script, a
 * module it imports, the config (wrangler.toml), also when an editor saves by renaming; a script or config
 * that does not load leaves the previous version serving and the error printed. Every request is one line
 * (method, path, status, time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../cli/run-cli.js';
import { waitUntil } from '../faults/load.js';

let dir: string;
let child: ChildProcess;
let stdout = '';
let stderr = '';
let url: string;

const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
const worker = (tag: string) => `import { suffix } from './lib.mjs';\nexport default { async fetch(request, env) { return new Response(\`${tag} \${env.GREETING} \${suffix}\`); } };\n`;
const config = (greeting: string) => `name = "reload-app"\nmain = "worker.mjs"\ncompatibility_date = "2025-01-01"\n[vars]\nGREETING = "${greeting}"\n`;

/** Polls the script until it answers `body` (each poll is a request of its own). */
async function answers(body: string): Promise<void> {
  let last = '';
  await waitUntil(async () => {
    last = await fetch(`${url}/`).then((r) => r.text(), (e: Error) => e.message);
    return last === body;
  }, 60_000, `the script to answer "${body}" (last: "${last}")`);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-reload-'));
  write('lib.mjs', "export const suffix = 'one';\n");
  write('worker.mjs', worker('v1'));
  write('wrangler.toml', config('hello'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STRATUS_')));
  child = spawn(process.execPath, [CLI, 'dev', '--http', '127.0.0.1:0', '--data-dir', path.join(dir, '.stratus'), '--log-format', 'pretty'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  await waitUntil(() => /listening on (http:\S+)/.test(stdout) || child.exitCode !== null, 90_000, 'stratus dev to listen');
  const m = /listening on (http:\S+)/.exec(stdout);
  if (!m) throw new Error(`stratus dev did not start:\n${stdout}\n${stderr}`);
  url = m[1]!;
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('stratus dev reloads and logs requests', () => {
  it('prints one line per request: method, path, status, time', async () => {
    expect(await (await fetch(`${url}/`)).text()).toBe('v1 hello one');
    const res = await fetch(`${url}/some/path?q=1`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await waitUntil(() => /^POST \/some\/path\?q=1 200 OK \(\d+ms\)$/m.test(stdout), 30_000, `the request line in:\n${stdout}`);
  });

  it('serves a changed script, a changed imported module and a changed config', async () => {
    write('worker.mjs', worker('v2'));
    await answers('v2 hello one');
    expect(stdout).toMatch(/^stratus dev: reloaded$/m);
    write('lib.mjs', "export const suffix = 'two';\n");
    await answers('v2 hello two');
    write('wrangler.toml', config('bonjour'));
    await answers('v2 bonjour two');
  });

  it('sees a save by rename (as editors do)', async () => {
    write('worker.mjs.tmp', worker('v3'));
    fs.renameSync(path.join(dir, 'worker.mjs.tmp'), path.join(dir, 'worker.mjs'));
    await answers('v3 bonjour two');
  });

  it('keeps serving the previous version when the script or the config breaks, and prints why', async () => {
    write('worker.mjs', 'export default { async fetch( { return new Response("broken") } };\n');
    await waitUntil(() => /reload failed, still serving the previous version: .+/.test(stderr), 60_000, `the reload failure in:\n${stderr}`);
    expect(await (await fetch(`${url}/`)).text()).toBe('v3 bonjour two');
    const before = stderr.length;
    write('wrangler.toml', 'name = "reload-app"\nmain = \n');
    await waitUntil(() => /reload failed, still serving the previous version: wrangler\.toml: not valid TOML/.test(stderr.slice(before)), 60_000, `the config failure in:\n${stderr}`);
    expect(await (await fetch(`${url}/`)).text()).toBe('v3 bonjour two');
    // Fixed again: the new version serves.
    write('wrangler.toml', config('hallo'));
    write('worker.mjs', worker('v4'));
    await answers('v4 hallo two');
  });
});
