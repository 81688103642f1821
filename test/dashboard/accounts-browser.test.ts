/**
 * The account picker and zone search in Chromium (harness.ts): a user with two accounts (the second made with
 * `POST /accounts`) picks one in the header and sees that account's zones, buckets made there, and a search by
 * name with the API's operators (contains, starts with, ends with, exact); a second user with one account gets no
 * picker and finds none of the first user's zones, whatever the search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { runCli } from '../cli/run-cli.js';
import { apiZone, checkAccessibility, EMAIL, go, HAS_CHROMIUM, KEY, signInWithKey, signOut, startDashboard, stopDashboard, timed, v4, type Dashboard } from './harness.js';

let d: Dashboard;
let page: Page;
let second: string;
const OTHER = { email: 'accounts-other@example.com', key: 'f60123456789abcdef0123456789abcdef012' };

/** The zone names the zones page lists. */
const listed = () => page.locator('table a[href^="#/zones/"]').allTextContents().then((n) => n.sort());

async function search(text: string, mode: string): Promise<void> {
  const form = page.getByRole('search', { name: 'Find zones' });
  await form.getByLabel('Find a zone by name').fill(text);
  await form.getByLabel('Name match').selectOption(mode);
  await form.getByRole('button', { name: 'Search' }).click();
}

describe.skipIf(!HAS_CHROMIUM)('dashboard account picker and zone search in Chromium', () => {
  beforeAll(async () => {
    d = await startDashboard();
    page = d.page;
    const made = await v4(d, 'POST', '/accounts', { name: 'Second Co' });
    expect(made.success, JSON.stringify(made.errors)).toBe(true);
    second = made.result.id;
    await apiZone(d, 'shop-one.example');
    await apiZone(d, 'plain-one.example');
    for (const name of ['shop-two.example', 'other-two.example']) {
      expect((await v4(d, 'POST', '/zones', { name, account: { id: second } })).success).toBe(true);
    }
    const added = await runCli(['user', 'add', '--email', OTHER.email, '--key', OTHER.key, '--data-dir', d.dir]);
    expect(added.code, added.stderr).toBe(0);
    const auth = { 'x-auth-email': OTHER.email, 'x-auth-key': OTHER.key };
    const otherAccount = (await v4(d, 'GET', '/accounts', undefined, auth)).result[0].id;
    expect((await v4(d, 'POST', '/zones', { name: 'shop-foreign.example', account: { id: otherAccount } }, auth)).success).toBe(true);
  }, 90_000);
  afterAll(async () => {
    await stopDashboard(d);
  });

  it('picks an account in the header: its zones, and a bucket made there belongs to it', async () => {
    await signInWithKey(d, EMAIL, KEY);
    await page.getByRole('heading', { level: 1, name: 'Zones' }).waitFor();
    const picker = page.getByRole('combobox', { name: 'Account' });
    await picker.waitFor();
    expect((await picker.locator('option').allTextContents()).length).toBe(2);
    // Signed in, the first account the API lists is picked; pick the admin's own.
    const own = (await v4(d, 'GET', `/accounts/${d.account}`)).result.name;
    await picker.selectOption({ label: own });
    await page.getByRole('link', { name: 'shop-one.example' }).waitFor();
    expect(await listed()).toEqual(['plain-one.example', 'shop-one.example']);
    await checkAccessibility(d, '20-account-picker');

    await timed('zones after an account change', () => picker.selectOption({ label: 'Second Co' }), () => page.getByRole('link', { name: 'shop-two.example' }).waitFor());
    expect(await listed()).toEqual(['other-two.example', 'shop-two.example']);
    // The choice stays for the tab (session storage), across a reload.
    await page.reload();
    await page.getByRole('link', { name: 'other-two.example' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Account' }).inputValue()).toBe(second);

    await go(d, '#/buckets', 'Buckets');
    await page.getByLabel('Bucket name').fill('second-co-files');
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('link', { name: 'second-co-files' }).waitFor();
    const buckets = (await v4(d, 'GET', `/accounts/${second}/r2/buckets`)).result.buckets.map((b: any) => b.name);
    expect(buckets).toEqual(['second-co-files']);
    expect((await v4(d, 'GET', `/accounts/${d.account}/r2/buckets`)).result.buckets).toEqual([]);
  });

  it('searches zones by name with the API\'s operators, in the picked account', async () => {
    await go(d, '#/zones', 'Zones');
    await search('shop', 'contains');
    await page.waitForFunction(() => document.querySelectorAll('table a[href^="#/zones/"]').length === 1);
    expect(await listed()).toEqual(['shop-two.example']);
    await search('oth', 'starts_with');
    await page.getByRole('link', { name: 'other-two.example' }).waitFor();
    expect(await listed()).toEqual(['other-two.example']);
    await search('two.example', 'ends_with');
    await page.waitForFunction(() => document.querySelectorAll('table a[href^="#/zones/"]').length === 2);
    await search('two', 'equal');
    await page.getByText('No zones whose name is two.').waitFor();
    await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: (await v4(d, 'GET', `/accounts/${d.account}`)).result.name });
    await page.getByRole('link', { name: 'shop-one.example' }).waitFor();
    await search('shop', 'contains');
    await page.waitForFunction(() => document.querySelectorAll('table a[href^="#/zones/"]').length === 1);
    expect(await listed()).toEqual(['shop-one.example']);
    await checkAccessibility(d, '21-zone-search');
  });

  it('a second user with one account gets no picker and finds none of the first user\'s zones', async () => {
    await signOut(d);
    await signInWithKey(d, OTHER.email, OTHER.key);
    await page.getByRole('link', { name: 'shop-foreign.example' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Account' }).count()).toBe(0);
    await search('shop', 'contains');
    await page.waitForFunction(() => document.querySelectorAll('table a[href^="#/zones/"]').length === 1);
    expect(await listed()).toEqual(['shop-foreign.example']);
    await search('one', 'contains');
    await page.getByText('No zones whose name contains one.').waitFor();
    expect(d.cspReports).toEqual([]);
  });
});
