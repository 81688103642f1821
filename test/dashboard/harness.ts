/**
 * What the dashboard's browser tests share: `stratus serve` started as the CLI runs it (from dist/), Debian's
 * Chromium (/usr/bin/chromium) driven by playwright-core (which downloads nothing), one tab, and helpers: v4 calls
 * from the test, sign-in, navigation that prints how long each page took to become interactive (lines starting
 * with `dashboard:`; printed, never asserted), and axe-core with no serious or critical violation.
 * Screenshots go to test-output/dashboard/ (ignored by git).
 */
import { expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startCli, type RunningCli } from '../cli/run-cli.js';
import { freePort } from '../dns-server/ports.js';
import { stopChild } from '../helpers/stop-child.js';

/** The system's Chromium; the browser tests are skipped without it. */
export const CHROMIUM = '/usr/bin/chromium';
/** Whether the browser tests can run here. */
export const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const ROOT = path.resolve(import.meta.dirname, '../..');
/** Where screenshots go. */
export const SHOTS = path.join(ROOT, 'test-output', 'dashboard');
/** The admin's credentials on every test server. */
export const EMAIL = 'dash@example.com';
export const KEY = 'd4e5f60123456789abcdef0123456789abcde';
export const TOKEN = 'dashboardTestToken_0123456789abcdefghijk';
/** HTML that must show as text wherever the API returns it. */
export const XSS = '<img src=x onerror="window.__pwned=1">';

/** A running server and browser tab. */
export interface Dashboard {
  dir: string;
  server: RunningCli;
  base: string;
  dnsPort: number;
  s3Port: number;
  browser: Browser;
  page: Page;
  /** The admin's account. */
  account: string;
  /** Console lines about the Content-Security-Policy (there must be none). */
  cspReports: string[];
}

/** Starts `stratus serve` (from dist/, the DNS answered on the main thread) and Chromium with one tab. */
export async function startDashboard(): Promise<Dashboard> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dashboard-'));
  const http = await freePort();
  const s3Port = await freePort();
  const dnsPort = await freePort();
  const server = await startCli(['serve', '--data-dir', dir, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${dnsPort}`,
    '--s3', `127.0.0.1:${s3Port}`, '--admin', 'off', '--edge', 'off', '--dns-workers', '0', '--log-level', 'info', '--log-format', 'json',
    '--auth-email', EMAIL, '--auth-key', KEY, '--api-token', TOKEN, '--rate-limit', '0', '--auth-failure-limit', '0']);
  const base = `http://127.0.0.1:${http}`;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--headless'],
  });
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const cspReports: string[] = [];
  page.on('dialog', (d) => void d.accept());
  page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspReports.push(m.text()); });
  const d: Dashboard = { dir, server, base, dnsPort, s3Port, browser, page, account: '', cspReports };
  d.account = (await v4(d, 'GET', '/accounts')).result[0].id;
  return d;
}

/** Closes the browser and the server, and removes the data folder. */
export async function stopDashboard(d: Dashboard | undefined): Promise<void> {
  await d?.browser.close();
  if (d?.server) await stopChild(d.server.child);
  if (d?.dir) fs.rmSync(d.dir, { recursive: true, force: true });
}

/** A v4 call from the test (the admin's global key unless `auth` headers are given). */
export async function v4(d: Dashboard, method: string, p: string, body?: unknown, auth: Record<string, string> = { 'x-auth-email': EMAIL, 'x-auth-key': KEY }): Promise<any> {
  const init: RequestInit = { method, headers: { ...auth } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) { init.body = JSON.stringify(body); (init.headers as Record<string, string>)['content-type'] = 'application/json'; }
  const res = await fetch(`${d.base}/client/v4${p}`, init);
  return res.json();
}

/** A screenshot, then axe-core on the current page: no serious or critical violation. */
export async function checkAccessibility(d: Dashboard, name: string): Promise<void> {
  const { page } = d;
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

/**
 * Runs `navigate`, waits until `ready` resolves (the page's content shown: interactive), and prints the time
 * between them as `dashboard: <label> interactive N ms` (a measure for bench/, never asserted).
 */
export async function timed(label: string, navigate: () => Promise<unknown>, ready: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await navigate();
  await ready();
  console.log(`dashboard: ${label} interactive ${Math.round(performance.now() - started)} ms`);
}

/** Goes to a hash route and waits for its heading (timed). */
export async function go(d: Dashboard, hash: string, heading: string): Promise<void> {
  await timed(`${hash.replace(/[0-9a-f]{32}/g, ':id')} page`, () => d.page.evaluate((h) => { location.hash = h; }, hash), () => d.page.getByRole('heading', { level: 1, name: heading }).waitFor());
}

/** Signs out and waits for the sign-in page. */
export async function signOut(d: Dashboard): Promise<void> {
  await d.page.getByRole('button', { name: 'Sign out' }).click();
  await d.page.getByRole('heading', { name: 'Sign in to Stratus' }).waitFor();
}

/** Opens the dashboard (when not on it) and signs in with a token. */
export async function signInWithToken(d: Dashboard, token: string): Promise<void> {
  const { page } = d;
  if (!page.url().startsWith(d.base)) await page.goto(`${d.base}/`);
  await page.getByRole('textbox', { name: 'API token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('h1:text("Zones"), .errors').first().waitFor();
  expect(await page.locator('.errors').allTextContents()).toEqual([]);
  await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
}

/** Signs in with an e-mail and global key. */
export async function signInWithKey(d: Dashboard, email: string, key: string): Promise<void> {
  const { page } = d;
  if (!page.url().startsWith(d.base)) await page.goto(`${d.base}/`);
  await page.getByRole('radio', { name: 'With an e-mail and global API key' }).check();
  await page.getByLabel('E-mail', { exact: true }).fill(email);
  await page.getByLabel('Global API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Creates a zone over the API (admin); returns its id. */
export async function apiZone(d: Dashboard, name: string): Promise<string> {
  const made = await v4(d, 'POST', '/zones', { name, account: { id: d.account } });
  expect(made.success, JSON.stringify(made.errors)).toBe(true);
  return made.result.id;
}
