/**
 * `stratus dev` (the built CLI, dist/) reloads what changes on disk, as wrangler dev does: the entry script, a
 * module it imports, the config (wrangler.toml), also when an editor saves by renaming; a script or config
 * that does not load leaves the previous version serving and the error printed. Every request is one line
 * (method, path, status, time).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../faults/load.js';
import { startDev, type DevProcess } from '../helpers/dev-process.js';

let dir: string;
let dev: DevProcess;
let url: string;
const stdout = (): string => dev.stdout();
const stderr = (): string => dev.stderr();

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
  dev = await startDev(dir);
  url = dev.url;
});

afterAll(async () => {
  await dev?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('stratus dev reloads and logs requests', () => {
  it('prints one line per request: method, path, status, time', async () => {
    expect(await (await fetch(`${url}/`)).text()).toBe('v1 hello one');
    const res = await fetch(`${url}/some/path?q=1`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await waitUntil(() => /^POST \/some\/path\?q=1 200 OK \(\d+ms\)$/m.test(stdout()), 30_000, `the request line in:\n${stdout()}`);
  });

  it('serves a changed script, a changed imported module and a changed config', async () => {
    write('worker.mjs', worker('v2'));
    await answers('v2 hello one');
    expect(stdout()).toMatch(/^stratus dev: reloaded$/m);
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
    await waitUntil(() => /reload failed, still serving the previous version: .+/.test(stderr()), 60_000, `the reload failure in:\n${stderr()}`);
    expect(await (await fetch(`${url}/`)).text()).toBe('v3 bonjour two');
    const before = stderr().length;
    write('wrangler.toml', 'name = "reload-app"\nmain = \n');
    await waitUntil(() => /reload failed, still serving the previous version: wrangler\.toml: not valid TOML/.test(stderr().slice(before)), 60_000, `the config failure in:\n${stderr()}`);
    expect(await (await fetch(`${url}/`)).text()).toBe('v3 bonjour two');
    // Fixed again: the new version serves.
    write('wrangler.toml', config('hallo'));
    write('worker.mjs', worker('v4'));
    await answers('v4 hallo two');
  });
});
