#!/usr/bin/env node
/**
 * How long each dashboard page takes to become interactive (issue 32: "every page interactive within 1 s on this
 * machine"), in Debian's Chromium driven by playwright-core against `stratus serve` from dist/ (`npm run build`
 * first). For each page, ROUNDS navigations from another page (hash route change to the page's content shown,
 * the way a user moves) and the median; the peer measured in the same run is the same browser loading
 * index.html and its stylesheet with the script refused (what any page costs before the app runs), and each page
 * is printed as a ratio to it. Also the cold sign-in page (a full load), and on the records page of a zone of
 * RECORDS records (over 1,000: loaded through the records service in a child process, bench/lib/bulk-load.mjs)
 * a filter by name. Prints, never asserts.
 *
 *   node bench/dashboard-pages.mjs [--rounds 7] [--records 200]   (--records 1000000 for issue 32's big zone)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { EMAIL, KEY, bulkLoad, parseArgs } from './lib/api-bench.mjs';

const args = parseArgs();
const ROUNDS = Number(args.rounds ?? 7);
const RECORDS = Number(args.records ?? 200);
const CLI = path.resolve(import.meta.dirname, '..', 'dist', 'cli.js');
const TOKEN = 'dashboardBenchToken_0123456789abcdefghijk';

const port = () => new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-bench-dashboard-'));
const http = await port();
const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dir, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${await port()}`, '--s3', `127.0.0.1:${await port()}`,
  '--admin', 'off', '--edge', 'off', '--auth-email', EMAIL, '--auth-key', KEY, '--api-token', TOKEN, '--rate-limit', '0', '--auth-failure-limit', '0', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
const base = `http://127.0.0.1:${http}`;
const v4 = async (method, p, body) => (await fetch(`${base}/client/v4${p}`, { method, headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' }, body: body && JSON.stringify(body) })).json();
for (;;) { try { if ((await fetch(`${base}/`)).ok) break; } catch { /* not yet */ } await new Promise((r) => setTimeout(r, 100)); }

const account = (await v4('GET', '/accounts')).result[0].id;
const zone = (await v4('POST', '/zones', { name: 'bench-dashboard.example', account: { id: account } })).result.id;
if (RECORDS > 1000) {
  const loaded = await bulkLoad(dir, { id: zone, name: 'bench-dashboard.example' }, RECORDS);
  console.log(`loaded ${RECORDS} records in ${loaded.seconds.toFixed(1)} s`);
} else for (let i = 0; i < RECORDS; i += 100) {
  await v4('POST', `/zones/${zone}/dns_records/batch`, { posts: Array.from({ length: Math.min(100, RECORDS - i) }, (_, j) => ({ type: 'A', name: `host${i + j}`, content: `192.0.2.${(i + j) % 250 + 1}` })) });
}
await v4('POST', `/accounts/${account}/r2/buckets`, { name: 'bench-bucket' });

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-background-networking'] });
try {
  const page = await (await browser.newContext()).newPage();
  // The peer: index.html alone, scripts blocked.
  const bare = [];
  const blocked = await page.context().newPage();
  await blocked.route((url) => url.pathname.endsWith('.js'), (route) => route.abort());
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await blocked.goto(`${base}/?bare=${i}`, { waitUntil: 'load' });
    bare.push(performance.now() - t);
  }
  const cold = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await page.goto(`${base}/?round=${i}`);
    await page.getByRole('heading', { name: 'Sign in to Stratus' }).waitFor();
    cold.push(performance.now() - t);
  }
  await page.getByRole('textbox', { name: 'API token' }).fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
  const pages = [
    ['zones', '#/zones', () => page.getByRole('link', { name: 'bench-dashboard.example' }).waitFor()],
    ['zone overview', `#/zones/${zone}`, () => page.locator('ul.nameservers li').first().waitFor()],
    [`DNS records (${RECORDS})`, `#/zones/${zone}/dns`, () => page.locator('table.records tbody tr').first().waitFor()],
    ['DNS settings', `#/zones/${zone}/settings`, () => page.getByRole('button', { name: 'Save DNS settings' }).waitFor()],
    ['DNSSEC', `#/zones/${zone}/dnssec`, () => page.getByRole('button', { name: /Turn DNSSEC/ }).waitFor()],
    ['SSL/TLS', `#/zones/${zone}/ssl`, () => page.locator('.not-available, h2:text("Certificate packs")').first().waitFor()],
    ['zone settings', `#/zones/${zone}/zone-settings`, () => page.getByRole('checkbox').first().waitFor()],
    ['buckets', '#/buckets', () => page.getByRole('link', { name: 'bench-bucket' }).waitFor()],
    ['bucket', '#/buckets/bench-bucket', () => page.getByText('No objects here.').waitFor()],
    ['scripts', '#/scripts', () => page.getByRole('heading', { level: 1, name: 'Scripts' }).waitFor()],
    ['API tokens', '#/tokens', () => page.getByRole('button', { name: 'Create token' }).waitFor()],
  ];
  const peer = median(bare);
  await blocked.close();
  console.log(`peer: index.html and stylesheet, script refused, median ${peer.toFixed(1)} ms of ${ROUNDS}`);
  console.log(`${'page'.padEnd(24)} ${'median ms'.padStart(10)} ${'max ms'.padStart(8)} ${'x peer'.padStart(7)}`);
  const line = (name, xs) => console.log(`${name.padEnd(24)} ${median(xs).toFixed(1).padStart(10)} ${Math.max(...xs).toFixed(1).padStart(8)} ${(median(xs) / peer).toFixed(1).padStart(7)}`);
  line('sign-in (cold load)', cold);
  for (const [name, hash, ready] of pages) {
    const times = [];
    for (let i = 0; i < ROUNDS; i++) {
      await page.evaluate(() => { location.hash = '#/nowhere'; });
      await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
      const t = performance.now();
      await page.evaluate((h) => { location.hash = h; }, hash);
      await ready();
      times.push(performance.now() - t);
    }
    line(name, times);
  }
  // The zone's records page: a filter by name (the list language's name.contains) down to one record.
  const times = [];
  for (let i = 0; i < ROUNDS; i++) {
    const want = `host${RECORDS - 1 - i}.`;
    await page.evaluate((h) => { location.hash = h; }, `#/zones/${zone}/dns`);
    await page.locator('table.records tbody tr').first().waitFor();
    const t = performance.now();
    await page.locator('form.filters').getByLabel('Name contains').fill(`${want}bench-dashboard.example.`); // a final dot ends the name
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction((w) => { const rows = document.querySelectorAll('table.records tbody tr'); return rows.length === 1 && rows[0].children[2]?.textContent?.startsWith(w); }, want);
    times.push(performance.now() - t);
    await page.evaluate(() => { location.hash = '#/nowhere'; });
    await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
  }
  line(`filter by name (${RECORDS})`, times);
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
}
