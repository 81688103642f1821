/**
 * The dashboard's scripts and API tokens pages in Chromium (harness.ts): a script uploaded through the API shown
 * with its versions and deployments; a token made from two permission groups, its value shown once, a
 * bucket-scoped token naming one bucket, and the scoped token's refused write shown with the API's own error;
 * no credential in the server's log lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { apiZone, checkAccessibility, go, HAS_CHROMIUM, KEY, SHOTS, signInWithToken, signOut, startDashboard, stopDashboard, timed, TOKEN, v4, XSS, type Dashboard } from './harness.js';

const ZONE = 'dash-scripts.example';
let d: Dashboard;
let page: Page;
let scopedValue = 'unset';

describe.skipIf(!HAS_CHROMIUM)('dashboard scripts and tokens pages in Chromium', () => {
  beforeAll(async () => {
    d = await startDashboard();
    page = d.page;
    await apiZone(d, ZONE);
    expect((await v4(d, 'POST', `/accounts/${d.account}/r2/buckets`, { name: 'dash-bucket' })).success).toBe(true);
    await signInWithToken(d, TOKEN);
  }, 90_000);
  afterAll(async () => {
    await stopDashboard(d);
  });

  it('shows a script uploaded through the API with its versions and deployments', async () => {
    const form = new FormData();
    form.append('metadata', new Blob([JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' })], { type: 'application/json' }));
    form.append('index.js', new Blob(['export default { fetch() { return new Response("hi"); } };'], { type: 'application/javascript+module' }), 'index.js');
    const put = await v4(d, 'PUT', `/accounts/${d.account}/workers/scripts/dash-script`, form);
    expect(put.success, JSON.stringify(put.errors)).toBe(true);
    await go(d, '#/scripts', 'Scripts');
    await page.getByRole('link', { name: 'dash-script' }).waitFor();
    await page.getByRole('combobox', { name: /^Zone/ }).selectOption({ label: ZONE });
    await page.getByText('No routes in this zone.').waitFor();
    await checkAccessibility(d, '11-scripts');
    await timed('script page', () => page.getByRole('link', { name: 'dash-script' }).click(), () => page.locator('table code').first().waitFor());
    await page.getByRole('heading', { level: 1, name: 'dash-script' }).waitFor();
    await checkAccessibility(d, '12-script');
  });

  it('creates a scoped token, shows its value once, and shows the API refusal next to the form', async () => {
    await go(d, '#/tokens', 'API tokens');
    await page.getByLabel('Token name').fill(`read only ${XSS}`);
    await page.getByLabel('DNS Read', { exact: true }).check();
    await page.getByLabel('Zone Read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const value = (await page.locator('pre.token-value').textContent())!.trim();
    scopedValue = value;
    expect(value.length).toBeGreaterThan(20);
    await page.getByRole('cell', { name: `read only ${XSS}`, exact: true }).waitFor();
    expect(await page.locator('table img').count()).toBe(0);
    await checkAccessibility(d, '13-tokens');

    // A bucket-scoped group on one bucket: the policy names that bucket.
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByLabel('Token name').fill('one bucket');
    await page.getByRole('combobox', { name: /^Buckets of bucket permissions/ }).selectOption('dash-bucket');
    await page.getByLabel('Workers R2 Storage Bucket Item Read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('pre.token-value').waitFor();
    const tokens: any[] = (await v4(d, 'GET', '/user/tokens')).result;
    expect(tokens.find((t) => t.name === 'one bucket').policies[0].resources).toEqual({ [`com.cloudflare.edge.r2.bucket.${d.account}_default_dash-bucket`]: '*' });

    await signOut(d);
    await signInWithToken(d, value);
    await page.getByRole('link', { name: ZONE }).click();
    await page.getByRole('link', { name: 'DNS records' }).click();
    await page.getByRole('button', { name: 'Add record' }).first().click();
    const form = page.locator('form.record-form');
    await form.locator('[name=name]').fill('refused');
    await form.locator('[name=content]').fill('192.0.2.50');
    await form.getByRole('button', { name: 'Add record' }).click();
    // The API's own words for the refusal, shown in the form.
    const zone = (await v4(d, 'GET', `/zones?name=${ZONE}`)).result[0];
    const direct = await (await fetch(`${d.base}/client/v4/zones/${zone.id}/dns_records`, {
      method: 'POST', headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'A', name: 'refused', content: '192.0.2.50' }),
    })).json();
    expect(direct.success).toBe(false);
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(`${direct.errors[0].message} (${direct.errors[0].code})`);
    await page.screenshot({ path: path.join(SHOTS, '14-refused.png'), fullPage: true });
    expect(d.cspReports).toEqual([]);
  });

  it('logged no credential the dashboard sent', () => {
    expect(d.server.output()).toContain('/client/v4/user/tokens');
    for (const secret of [TOKEN, KEY, scopedValue]) expect(d.server.output()).not.toContain(secret);
  });
});
