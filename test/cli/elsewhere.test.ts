/**
 * `stratus` outside the clone: `stratus dev` run from a wrangler project's own folder through the documented
 * `npx --prefix <clone> stratus` finds the project's wrangler.jsonc in that folder and serves its script; the
 * help says where the config is looked for and that `serve` runs the edge listener.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../helpers/stop-child.js';
import { waitUntil } from '../faults/load.js';
import { runCli } from './run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let project: string;
beforeAll(() => { project = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-elsewhere-')); });
afterAll(() => { fs.rmSync(project, { recursive: true, force: true }); });

describe('stratus from a folder outside the clone', () => {
  it('npx --prefix <clone> stratus dev serves the wrangler.jsonc project of the current folder', async () => {
    fs.writeFileSync(path.join(project, 'wrangler.jsonc'), '{\n  // a project of its own\n  "name": "elsewhere",\n  "main": "src/index.js",\n  "compatibility_date": "2024-09-23",\n  "vars": { "WHO": "elsewhere" },\n}\n');
    fs.mkdirSync(path.join(project, 'src'));
    fs.writeFileSync(path.join(project, 'src/index.js'), 'export default { fetch(request, env) { return new Response(`hello from ${env.WHO}`); } };\n');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STRATUS_|npm_)/.test(k)));
    // The clone's Node.js (the node devDependency) first on the PATH, as docs/install.md says for a machine whose own is older.
    env.PATH = `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`;
    // npx --prefix runs the clone's `prepare` (npm run build) first: that would rewrite dist/ under the other
    // files' spawned servers (one died on a half-written dist/ in a whole run). The suite built it already.
    env.npm_config_ignore_scripts = 'true';
    const child = spawn('npx', ['--prefix', ROOT, 'stratus', 'dev', '--http', '127.0.0.1:0', '--log-format', 'pretty'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      await waitUntil(() => /listening on http:\S+/.test(out) || child.exitCode !== null, 90_000, 'stratus dev to listen');
      const url = /listening on (http:\S+)/.exec(out)?.[1];
      expect(url, out).toBeDefined();
      expect(await (await fetch(url!)).text()).toBe('hello from elsewhere');
      expect(fs.existsSync(path.join(project, '.stratus')), 'its data folder is in the project folder').toBe(true);
    } finally {
      // npx runs stratus as its own child: stop the whole group, or the server outlives the test.
      const group = -child.pid!;
      const alive = () => { try { process.kill(group, 0); return true; } catch { return false; } };
      if (alive()) process.kill(group, 'SIGTERM');
      await waitUntil(() => !alive(), 30_000, 'npx and stratus dev to exit').catch(() => { if (alive()) process.kill(group, 'SIGKILL'); });
      await stopChild(child);
    }
  });

  it('the help names wrangler.jsonc for dev and the edge listener for serve', async () => {
    const dev = await runCli(['dev', '--help']);
    expect(dev.stdout).toContain('wrangler.jsonc');
    const top = await runCli(['--help']);
    expect(top.stdout).toMatch(/serve +run the v4 API, the DNS server, the S3 API and the edge listener/);
    const serve = await runCli(['serve', '--help']);
    expect(serve.stdout).toContain('edge listener');
  });
});
