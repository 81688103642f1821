/**
 * The dashboard in a real browser: Debian's Chromium (/usr/bin/chromium) driven by playwright-core (which downloads
 * nothing) against `stratus serve` from dist/ started here. One server, one browser and one tab for the file; the
 * steps run in order and share what they made. Skipped when the machine has no Chromium.
 * Screenshots go to test-output/dashboard/ (ignored by git). axe-core runs on every page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { runCli, startCli, type RunningCli } from '../cli/run-cli.js';
import { freePort } from '../dns-server/ports.js';
import { stopChild } from '../helpers/stop-child.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '../..');
const SHOTS = path.join(ROOT, 'test-output', 'dashboard');
const EMAIL = 'dash@example.com';
const KEY = 'd4e5f60123456789abcdef0123456789abcde';
const TOKEN = 'dashboardTestToken_0123456789abcdefghijk';
const ZONE = 'dash-browser.example';
const XSS = '<img src=x onerror="window.__pwned=1">';

let dir: string;
let server: RunningCli;
let base: string;
let browser: Browser;
let page: Page;
let account: string;
const cspReports: string[] = [];
let scopedValue = 'unset';
let s3Port: number;

/** A v4 call from the test (admin's global key). */
async function v4(method: string, p: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method, headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) { init.body = JSON.stringify(body); (init.headers as Record<string, string>)['content-type'] = 'application/json'; }
  const res = await fetch(`${base}/client/v4${p}`, init);
  return res.json();
}

/** axe-core on the current page: no serious or critical violation. */
async function checkAccessibility(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  const hasAxe = await page.evaluate(() => typeof (window as any).axe === 'object');
  if (!hasAxe) await page.evaluate(fs.readFileSync(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, name).toEqual([]);
}

async function go(hash: string, heading: string): Promise<void> {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Stratus' }).waitFor();
}

async function signInWithToken(token: string): Promise<void> {
  await page.getByRole('textbox', { name: 'API token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('h1:text("Zones"), .errors').first().waitFor();
  expect(await page.locator('.errors').allTextContents()).toEqual([]);
  await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
}

describe.skipIf(!fs.existsSync(CHROMIUM))('dashboard in Chromium', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dashboard-'));
    const http = await freePort();
    s3Port = await freePort();
    server = await startCli(['serve', '--data-dir', dir, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${await freePort()}`,
      '--s3', `127.0.0.1:${s3Port}`, '--admin', 'off', '--edge', 'off', '--dns-workers', '0', '--log-level', 'info', '--log-format', 'json',
      '--auth-email', EMAIL, '--auth-key', KEY, '--api-token', TOKEN, '--rate-limit', '0', '--auth-failure-limit', '0']);
    base = `http://127.0.0.1:${http}`;
    account = (await v4('GET', '/accounts')).result[0].id;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--headless'],
    });
    const context = await browser.newContext({ acceptDownloads: true });
    page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspReports.push(m.text()); });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (server) await stopChild(server.child);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('signs in with the keyboard only, keeping the token out of the URL and of localStorage', async () => {
    const started = Date.now();
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in to Stratus' }).waitFor();
    console.log(`dashboard: sign-in page interactive ${Date.now() - started} ms after navigation`);
    await checkAccessibility('01-sign-in');

    // A wrong token: the API's own refusal, and still signed out.
    await page.getByRole('textbox', { name: 'API token' }).fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refusal = await (await fetch(`${base}/client/v4/accounts`, { headers: { authorization: 'Bearer not-a-token' } })).json();
    await page.getByRole('alert').getByText(`${refusal.errors[0].message} (${refusal.errors[0].code})`).waitFor();
    await page.getByRole('textbox', { name: 'API token' }).fill('');
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Stratus' }).waitFor();
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name === 'token')) break;
    }
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('token');
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(TOKEN);
    expect(await page.evaluate(() => sessionStorage.getItem('stratus.session'))).toContain(TOKEN);
    await checkAccessibility('02-zones-empty');
    // A reload keeps the tab signed in; each page shows within a measured time.
    const reloaded = Date.now();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
    console.log(`dashboard: zones page interactive ${Date.now() - reloaded} ms after a reload`);
  });

  it('creates a zone and shows its name servers and status', async () => {
    await page.getByLabel('Zone name').fill(ZONE);
    await page.getByRole('button', { name: 'Add zone' }).click();
    await page.getByRole('heading', { level: 1, name: ZONE }).waitFor();
    const zone = (await v4('GET', `/zones?name=${ZONE}`)).result[0];
    for (const ns of zone.name_servers) await page.locator('ul.nameservers').getByText(ns).waitFor();
    await page.getByText(zone.status, { exact: true }).first().waitFor();
    await checkAccessibility('03-zone-overview');
  });

  it('adds one record of each common type with its form, filters, edits, and shows HTML as text', async () => {
    await page.getByRole('link', { name: 'DNS records' }).click();
    const form = page.locator('form.record-form');
    const add = async (type: string, fields: Record<string, string>, shows: string) => {
      await page.getByRole('button', { name: 'Add record' }).first().click();
      await form.locator('select[name=type]').selectOption(type);
      for (const [name, value] of Object.entries(fields)) await form.locator(`[name="${name}"]`).fill(value);
      await form.getByRole('button', { name: 'Add record' }).click();
      await form.waitFor({ state: 'detached' });
      await page.locator('table.records td.content', { hasText: shows }).first().waitFor();
    };
    await add('A', { name: 'www', content: '192.0.2.10' }, '192.0.2.10');
    await add('AAAA', { name: 'www', content: '2001:db8::10' }, '2001:db8::10');
    await add('CNAME', { name: 'blog', content: `www.${ZONE}` }, `www.${ZONE}`);
    await add('MX', { name: '@', priority: '5', content: `mail.${ZONE}` }, `mail.${ZONE}`);
    await add('TXT', { name: '@', content: '"v=spf1 -all"' }, 'v=spf1 -all');
    await add('SRV', { name: `_sip._tcp`, 'data.priority': '10', 'data.weight': '5', 'data.port': '5060', 'data.target': `sip.${ZONE}` }, `5060 sip.${ZONE}`);
    // The form of a data type, open: every field labelled.
    await page.getByRole('button', { name: 'Add record' }).first().click();
    await form.locator('select[name=type]').selectOption('LOC');
    await form.locator('[name="data.lat_degrees"]').waitFor();
    await checkAccessibility('04-record-form-loc');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await add('CAA', { name: '@', 'data.flags': '0', 'data.tag': 'issue', 'data.value': 'ca.example.net' }, 'ca.example.net');
    await add('TXT', { name: 'xss', content: XSS }, '<img');
    await checkAccessibility('04-records-table');

    // HTML in a record shows as text, never as an element.
    expect(await page.locator('table.records img').count()).toBe(0);
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();

    // The API has the records the forms sent.
    const zone = (await v4('GET', `/zones?name=${ZONE}`)).result[0];
    const records: any[] = (await v4('GET', `/zones/${zone.id}/dns_records?per_page=100`)).result;
    expect(records.find((r) => r.type === 'SRV')).toMatchObject({ name: `_sip._tcp.${ZONE}`, data: { priority: 10, weight: 5, port: 5060, target: `sip.${ZONE}` } });
    expect(records.find((r) => r.type === 'MX')).toMatchObject({ priority: 5, content: `mail.${ZONE}` });

    // Filter by type: only TXT rows remain.
    await page.locator('form.filters').getByLabel('Type').selectOption('TXT');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('table.records tbody tr')].every((tr) => tr.children[1]?.textContent === 'TXT'));
    expect(await page.locator('table.records tbody tr').count()).toBe(2);
    await page.locator('form.filters').getByRole('button', { name: 'Clear' }).click();
    await page.locator('form.filters').getByLabel('Content contains').fill('192.0.2');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table.records tbody tr').length === 1);

    // Edit the A record.
    await page.getByRole('button', { name: `Edit A www.${ZONE}` }).click();
    await form.locator('[name=content]').fill('192.0.2.99');
    await form.getByRole('button', { name: 'Save record' }).click();
    await page.locator('table.records td.content', { hasText: '192.0.2.99' }).waitFor();
    const a = (await v4('GET', `/zones/${zone.id}/dns_records?type=A`)).result[0];
    expect(a.content).toBe('192.0.2.99');

    // Export downloads the zone file the API writes.
    await page.locator('form.filters').getByRole('button', { name: 'Clear' }).click();
    // Sort: by content, descending, in the API's order (names of the rows compared).
    await page.getByLabel('Sort by').selectOption('content');
    await page.getByLabel('Direction').selectOption('desc');
    const apiOrder: string[] = (await v4('GET', `/zones/${zone.id}/dns_records?order=content&direction=desc&per_page=50`)).result.map((r: any) => `${r.type} ${r.name}`);
    expect(apiOrder.length).toBeGreaterThan(5);
    await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('table.records tbody tr')].map((tr) => `${tr.children[1]?.textContent} ${tr.children[2]?.textContent}`)) === want, JSON.stringify(apiOrder));
    await page.getByLabel('Sort by').selectOption('type');
    await page.getByLabel('Direction').selectOption('asc');
    const exporting = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export zone file' }).click();
    const exported = fs.readFileSync(await (await exporting).path(), 'utf8');
    expect(exported).toMatch(/www\.dash-browser\.example\.\s+\d+\s+IN\s+A\s+192\.0\.2\.99/);

    // Batch delete of two selected rows.
    await page.getByRole('button', { name: 'Add record' }).first().click();
    await form.locator('[name=name]').fill('gone1');
    await form.locator('[name=content]').fill('192.0.2.31');
    await form.getByRole('button', { name: 'Add record' }).click();
    await page.getByRole('checkbox', { name: `Select A gone1.${ZONE}` }).check();
    await page.getByRole('checkbox', { name: `Select TXT xss.${ZONE}` }).check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    await page.getByRole('checkbox', { name: `Select A gone1.${ZONE}` }).waitFor({ state: 'detached' });
    const left: any[] = (await v4('GET', `/zones/${zone.id}/dns_records?per_page=100`)).result;
    expect(left.map((r) => r.name)).not.toContain(`gone1.${ZONE}`);
    expect(left.map((r) => r.name)).not.toContain(`xss.${ZONE}`);
  });

  it('imports a zone file with its counts, and turns DNSSEC on showing the DS', async () => {
    await page.locator('form.filters').getByRole('button', { name: 'Clear' }).click();
    const zoneFile = [`$ORIGIN ${ZONE}.`, 'imported1 300 IN A 192.0.2.21', 'imported2 300 IN TXT "from a file"', ''].join('\n');
    await page.getByLabel('Zone file').setInputFiles({ name: 'zone.txt', mimeType: 'text/plain', buffer: Buffer.from(zoneFile) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Imported 2 of 2 records parsed.').waitFor();
    await page.locator('table.records td', { hasText: `imported1.${ZONE}` }).waitFor();

    await page.getByRole('link', { name: 'DNSSEC' }).click();
    await page.getByRole('button', { name: 'Turn DNSSEC on' }).click();
    await page.locator('pre.ds').waitFor();
    expect(await page.locator('pre.ds').textContent()).toMatch(new RegExp(`^${ZONE.replace(/\./g, '\\.')}\\. 3600 IN DS \\d+ 13 2 [0-9A-F]{64}$`));
    await checkAccessibility('05-dnssec');
    await page.getByRole('link', { name: 'DNS settings' }).click();
    await page.getByRole('button', { name: 'Save DNS settings' }).waitFor();
    await checkAccessibility('06-dns-settings');
    await page.getByRole('link', { name: 'SSL/TLS' }).click();
    // Either this server has the certificate routes, or the page says they are not available.
    await page.locator('.not-available, h2:text("Certificate packs")').first().waitFor();
    await checkAccessibility('07-certificates');

    await page.getByRole('link', { name: 'Zone settings' }).click();
    const https = page.getByRole('checkbox', { name: 'always use https on' });
    await https.check();
    const zone = (await v4('GET', `/zones?name=${ZONE}`)).result[0];
    await expect.poll(async () => (await v4('GET', `/zones/${zone.id}/settings/always_use_https`)).result.value).toBe('on');
    await checkAccessibility('08-zone-settings');
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: 'Hold the zone' }).click();
    await page.getByRole('button', { name: 'Release the hold' }).waitFor();
    expect((await v4('GET', `/zones/${zone.id}/hold`)).result.hold).toBe(true);
  });

  it('creates a bucket, uploads and downloads a 20 MB object, and shows an HTML object key as text', async () => {
    await go('#/buckets', 'Buckets');
    await page.getByLabel('Bucket name').fill('dash-bucket');
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('link', { name: 'dash-bucket' }).click();
    await page.getByRole('heading', { level: 1, name: 'dash-bucket' }).waitFor();

    // Uploads in parts go to the S3 listener (another origin), signed with the token's key pair: a CORS rule first.
    await page.getByRole('button', { name: 'Allow this page to upload in parts (adds a CORS rule)' }).click();
    await expect.poll(async () => (await v4('GET', `/accounts/${account}/r2/buckets/dash-bucket/cors`)).result?.rules?.[0]?.allowed?.origins).toEqual([base]);
    const big = randomBytes(20 * 1024 * 1024);
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: big });
    await page.getByLabel("Key (default: the file's name)").fill('folder/big.bin');
    await page.getByRole('checkbox', { name: /In parts over the S3 API/ }).check();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('Uploaded folder/big.bin in 3 parts over the S3 API.').waitFor({ timeout: 30_000 });
    const stored = (await v4('GET', `/accounts/${account}/r2/buckets/dash-bucket/objects?prefix=folder/`)).result[0];
    expect(stored).toMatchObject({ key: 'folder/big.bin', size: big.length });
    expect(stored.etag).toMatch(/-3$/); // a multipart ETag: three parts
    await page.getByRole('button', { name: 'folder/', exact: true }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download folder/big.bin' }).click();
    const download = await downloading;
    const saved = path.join(dir, 'downloaded.bin');
    await download.saveAs(saved);
    expect(createHash('sha256').update(fs.readFileSync(saved)).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));

    await page.getByRole('button', { name: 'dash-bucket', exact: true }).click();
    // Cancel during the second part: the upload is aborted on the server too (no upload left in progress).
    let held: import('playwright-core').Route | undefined;
    await page.route((url) => url.pathname.endsWith('/dash-bucket/cancelled.bin') && url.searchParams.get('partNumber') === '2', async (route) => {
      if (route.request().method() === 'PUT') held = route;
      else await route.continue();
    });
    await page.getByLabel("Key (default: the file's name)").fill('cancelled.bin');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect.poll(() => held !== undefined, { timeout: 30_000 }).toBe(true);
    expect(Number(await page.getByRole('progressbar', { name: 'Upload progress' }).getAttribute('value'))).toBeGreaterThanOrEqual(8 * 1024 * 1024);
    await page.getByRole('button', { name: 'Cancel upload' }).click();
    await page.locator('form', { hasText: 'Upload an object' }).getByRole('alert').getByText('Upload cancelled').waitFor();
    await held!.abort().catch(() => undefined);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    const tokenId = (await (await fetch(`${base}/client/v4/user/tokens/verify`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).result.id;
    const s3 = new S3Client({ endpoint: `http://127.0.0.1:${s3Port}`, region: 'auto', forcePathStyle: true,
      credentials: { accessKeyId: tokenId, secretAccessKey: createHash('sha256').update(TOKEN).digest('hex') } });
    await expect.poll(async () => (await s3.send(new ListMultipartUploadsCommand({ Bucket: 'dash-bucket' }))).Uploads ?? []).toEqual([]);
    expect((await v4('GET', `/accounts/${account}/r2/buckets/dash-bucket/objects?prefix=cancelled`)).result).toEqual([]);
    s3.destroy();

    // A small file in one request through the v4 object route.
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'x.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
    await page.getByLabel("Key (default: the file's name)").fill(XSS);
    await page.getByRole('checkbox', { name: /In parts over the S3 API/ }).uncheck();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.locator('table.objects').getByText(XSS, { exact: true }).waitFor();
    expect(await page.locator('table.objects img').count()).toBe(0);
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
    const cors = { rules: [{ allowed: { origins: ['https://dash.example'], methods: ['GET'] } }] };
    await page.getByLabel('CORS rules (JSON, as the API takes it)').fill(JSON.stringify(cors));
    await page.getByRole('button', { name: 'Save cors rules' }).click();
    await page.locator('section', { hasText: 'CORS rules' }).getByText('Saved.').waitFor();
    expect((await v4('GET', `/accounts/${account}/r2/buckets/dash-bucket/cors`)).result.rules[0].allowed).toMatchObject(cors.rules[0]!.allowed);
    await page.getByLabel('Custom domain').fill(`files.${ZONE}`);
    await page.getByRole('combobox', { name: /^In zone/ }).selectOption({ label: ZONE });
    await page.getByRole('button', { name: 'Add custom domain' }).click();
    await page.getByRole('cell', { name: `files.${ZONE}`, exact: true }).waitFor();
    expect((await v4('GET', `/accounts/${account}/r2/buckets/dash-bucket/domains/custom`)).result.domains.map((d: any) => d.domain)).toEqual([`files.${ZONE}`]);
    await checkAccessibility('09-bucket');
    await go('#/buckets', 'Buckets');
    await checkAccessibility('10-buckets');
  });

  it('shows a script uploaded through the API with its versions and deployments', async () => {
    const form = new FormData();
    form.append('metadata', new Blob([JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' })], { type: 'application/json' }));
    form.append('index.js', new Blob(['export default { fetch() { return new Response("hi"); } };'], { type: 'application/javascript+module' }), 'index.js');
    const put = await v4('PUT', `/accounts/${account}/workers/scripts/dash-script`, form);
    expect(put.success, JSON.stringify(put.errors)).toBe(true);
    await go('#/scripts', 'Scripts');
    await page.getByRole('link', { name: 'dash-script' }).waitFor();
    await page.getByRole('combobox', { name: /^Zone/ }).selectOption({ label: ZONE });
    await page.getByText('No routes in this zone.').waitFor();
    await checkAccessibility('11-scripts');
    await page.getByRole('link', { name: 'dash-script' }).click();
    await page.getByRole('heading', { level: 1, name: 'dash-script' }).waitFor();
    await page.locator('table code').first().waitFor();
    await checkAccessibility('12-script');
  });

  it('creates a scoped token, shows its value once, and shows the API refusal next to the form', async () => {
    await go('#/tokens', 'API tokens');
    await page.getByLabel('Token name').fill(`read only ${XSS}`);
    await page.getByLabel('DNS Read', { exact: true }).check();
    await page.getByLabel('Zone Read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const value = (await page.locator('pre.token-value').textContent())!.trim();
    scopedValue = value;
    expect(value.length).toBeGreaterThan(20);
    await page.getByRole('cell', { name: `read only ${XSS}`, exact: true }).waitFor();
    expect(await page.locator('table img').count()).toBe(0);
    await checkAccessibility('13-tokens');

    // A bucket-scoped group on one bucket: the policy names that bucket.
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByLabel('Token name').fill('one bucket');
    await page.getByRole('combobox', { name: /^Buckets of bucket permissions/ }).selectOption('dash-bucket');
    await page.getByLabel('Workers R2 Storage Bucket Item Read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('pre.token-value').waitFor();
    const tokens: any[] = (await v4('GET', '/user/tokens')).result;
    expect(tokens.find((t) => t.name === 'one bucket').policies[0].resources).toEqual({ [`com.cloudflare.edge.r2.bucket.${account}_default_dash-bucket`]: '*' });

    await signOut();
    await signInWithToken(value);
    await page.getByRole('link', { name: ZONE }).click();
    await page.getByRole('link', { name: 'DNS records' }).click();
    await page.getByRole('button', { name: 'Add record' }).first().click();
    const form = page.locator('form.record-form');
    await form.locator('[name=name]').fill('refused');
    await form.locator('[name=content]').fill('192.0.2.50');
    await form.getByRole('button', { name: 'Add record' }).click();
    // The API's own words for the refusal, shown in the form.
    const zone = (await v4('GET', `/zones?name=${ZONE}`)).result[0];
    const direct = await (await fetch(`${base}/client/v4/zones/${zone.id}/dns_records`, {
      method: 'POST', headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'A', name: 'refused', content: '192.0.2.50' }),
    })).json();
    expect(direct.success).toBe(false);
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(`${direct.errors[0].message} (${direct.errors[0].code})`);
    await page.screenshot({ path: path.join(SHOTS, '14-refused.png'), fullPage: true });
    expect(cspReports).toEqual([]);
  });

  it('signs in with an e-mail and global API key', async () => {
    await signOut();
    await page.getByRole('radio', { name: 'With an e-mail and global API key' }).check();
    await page.getByLabel('E-mail', { exact: true }).fill(EMAIL);
    await page.getByLabel('Global API key', { exact: true }).fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: ZONE }).waitFor();
    expect(page.url()).not.toContain(KEY);
    expect(cspReports).toEqual([]);
  });

  it('a second user sees none of the first user\'s zones, and a link to one gets the API\'s refusal', async () => {
    const other = { email: 'other-dash@example.com', key: 'e5f60123456789abcdef0123456789abcdef0' };
    const added = await runCli(['user', 'add', '--email', other.email, '--key', other.key, '--data-dir', dir]);
    expect(added.code, added.stderr).toBe(0);
    const zone = (await v4('GET', `/zones?name=${ZONE}`)).result[0];
    await signOut();
    await page.getByRole('radio', { name: 'With an e-mail and global API key' }).check();
    await page.getByLabel('E-mail', { exact: true }).fill(other.email);
    await page.getByLabel('Global API key', { exact: true }).fill(other.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No zones.').waitFor();
    await page.evaluate((id) => { location.hash = `#/zones/${id}/dns`; }, zone.id);
    const refusal = await (await fetch(`${base}/client/v4/zones/${zone.id}`, { headers: { 'x-auth-email': other.email, 'x-auth-key': other.key } })).json();
    expect(refusal.success).toBe(false);
    await page.getByRole('alert').first().getByText(`${refusal.errors[0].message} (${refusal.errors[0].code})`).waitFor();
    expect(await page.locator('table.records').count()).toBe(0);
  });

  it('logged no credential the dashboard sent', () => {
    // Access lines at info: one per request, so the dashboard's calls were logged.
    expect(server.output()).toContain('/client/v4/zones');
    for (const secret of [TOKEN, KEY, scopedValue, 'e5f60123456789abcdef0123456789abcdef0']) expect(server.output()).not.toContain(secret);
  });
});
