/**
 * The dashboard's records page in Chromium (harness.ts): one record of each common type through its form, filters,
 * sort in the API's order, an edit, export download, batch delete, a zone file import, HTML shown as text; and
 * "What DNS answers now": the live answer through /dns-query beside the API's records, asked again after a
 * change, compared with dig over UDP, signed with DO once DNSSEC is on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { apiZone, checkAccessibility, go, HAS_CHROMIUM, signInWithToken, startDashboard, stopDashboard, timed, TOKEN, v4, XSS, type Dashboard } from './harness.js';
import { dig } from '../dns-server/dig.js';

const ZONE = 'dash-records.example';
let d: Dashboard;
let page: Page;
let zoneId: string;

describe.skipIf(!HAS_CHROMIUM)('dashboard records page in Chromium', () => {
  beforeAll(async () => {
    d = await startDashboard();
    page = d.page;
    zoneId = await apiZone(d, ZONE);
    await signInWithToken(d, TOKEN);
    await go(d, `#/zones/${zoneId}`, ZONE);
  }, 90_000);
  afterAll(async () => {
    await stopDashboard(d);
  });

  it('adds one record of each common type with its form, filters, edits, and shows HTML as text', async () => {
    await timed('zone DNS records tab', () => page.getByRole('link', { name: 'DNS records' }).click(), () => page.getByRole('button', { name: 'Apply filters' }).waitFor());
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
    await checkAccessibility(d, '04-record-form-loc');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await add('CAA', { name: '@', 'data.flags': '0', 'data.tag': 'issue', 'data.value': 'ca.example.net' }, 'ca.example.net');
    await add('TXT', { name: 'xss', content: XSS }, '<img');
    await checkAccessibility(d, '04-records-table');

    // HTML in a record shows as text, never as an element.
    expect(await page.locator('table.records img').count()).toBe(0);
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();

    // The API has the records the forms sent.
    const zone = (await v4(d, 'GET', `/zones?name=${ZONE}`)).result[0];
    const records: any[] = (await v4(d, 'GET', `/zones/${zone.id}/dns_records?per_page=100`)).result;
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
    const a = (await v4(d, 'GET', `/zones/${zone.id}/dns_records?type=A`)).result[0];
    expect(a.content).toBe('192.0.2.99');

    // Export downloads the zone file the API writes.
    await page.locator('form.filters').getByRole('button', { name: 'Clear' }).click();
    // Sort: by content, descending, in the API's order (names of the rows compared).
    await page.getByLabel('Sort by').selectOption('content');
    await page.getByLabel('Direction').selectOption('desc');
    const apiOrder: string[] = (await v4(d, 'GET', `/zones/${zone.id}/dns_records?order=content&direction=desc&per_page=50`)).result.map((r: any) => `${r.type} ${r.name}`);
    expect(apiOrder.length).toBeGreaterThan(5);
    await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('table.records tbody tr')].map((tr) => `${tr.children[1]?.textContent} ${tr.children[2]?.textContent}`)) === want, JSON.stringify(apiOrder));
    await page.getByLabel('Sort by').selectOption('type');
    await page.getByLabel('Direction').selectOption('asc');
    const exporting = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export zone file' }).click();
    const exported = fs.readFileSync(await (await exporting).path(), 'utf8');
    expect(exported).toMatch(/www\.dash-records\.example\.\s+\d+\s+IN\s+A\s+192\.0\.2\.99/);

    // Batch delete of two selected rows.
    await page.getByRole('button', { name: 'Add record' }).first().click();
    await form.locator('[name=name]').fill('gone1');
    await form.locator('[name=content]').fill('192.0.2.31');
    await form.getByRole('button', { name: 'Add record' }).click();
    await page.getByRole('checkbox', { name: `Select A gone1.${ZONE}` }).check();
    await page.getByRole('checkbox', { name: `Select TXT xss.${ZONE}` }).check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    await page.getByRole('checkbox', { name: `Select A gone1.${ZONE}` }).waitFor({ state: 'detached' });
    const left: any[] = (await v4(d, 'GET', `/zones/${zone.id}/dns_records?per_page=100`)).result;
    expect(left.map((r) => r.name)).not.toContain(`gone1.${ZONE}`);
    expect(left.map((r) => r.name)).not.toContain(`xss.${ZONE}`);
  });

  it('imports a zone file with its counts', async () => {
    await page.locator('form.filters').getByRole('button', { name: 'Clear' }).click();
    const zoneFile = [`$ORIGIN ${ZONE}.`, 'imported1 300 IN A 192.0.2.21', 'imported2 300 IN TXT "from a file"', ''].join('\n');
    await page.getByLabel('Zone file').setInputFiles({ name: 'zone.txt', mimeType: 'text/plain', buffer: Buffer.from(zoneFile) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Imported 2 of 2 records parsed.').waitFor();
    await page.locator('table.records td', { hasText: `imported1.${ZONE}` }).waitFor();
  });

  it('shows what DNS answers now beside the API\'s records, and asks again after a record change', async () => {
    const panel = page.locator('section', { has: page.getByRole('heading', { name: 'What DNS answers now' }) });
    const status = panel.locator('.dns-status');
    await panel.getByLabel('Name to ask').fill('www');
    await panel.getByLabel('Record type to ask').selectOption('A');
    await timed('DNS answer', () => panel.getByRole('button', { name: 'Ask DNS' }).click(), () => status.getByText('NOERROR').waitFor());
    const udp = await dig(d.dnsPort, `www.${ZONE}`, 'A');
    expect(udp.answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.99`]);
    await panel.locator('table.dns-answer td.content', { hasText: '192.0.2.99' }).waitFor();
    await panel.locator('.api-records').getByText(`A www.${ZONE} 192.0.2.99`).waitFor();
    await checkAccessibility(d, '05-dns-answer');

    // A record added through the form: the panel asks again and shows both, as dig does.
    const form = page.locator('form.record-form');
    await page.getByRole('button', { name: 'Add record' }).first().click();
    await form.locator('[name=name]').fill('www');
    await form.locator('[name=content]').fill('192.0.2.100');
    await form.locator('[name=ttl]').fill('300');
    await form.getByRole('button', { name: 'Add record' }).click();
    await panel.locator('table.dns-answer td.content', { hasText: '192.0.2.100' }).waitFor();
    const shown = await panel.locator('table.dns-answer tbody tr').evaluateAll((rows) => rows.map((tr) => [...tr.children].map((c) => c.textContent).join(' ')).sort());
    const after = await dig(d.dnsPort, `www.${ZONE}`, 'A');
    expect(shown).toEqual(after.answer.map((l) => { const [n, ttl, , t, data] = l.split(' '); return `${n!.replace(/\.$/, '')} ${t} ${ttl} ${data}`; }).sort());

    // A name with no record: NXDOMAIN with the SOA, and the API has none either.
    await panel.getByLabel('Name to ask').fill('nothing-here');
    await panel.getByRole('button', { name: 'Ask DNS' }).click();
    await status.getByText('NXDOMAIN').waitFor();
    await panel.getByText('No record of this name and type in the API.').waitFor();
    await panel.getByRole('table', { name: 'Authority section' }).getByText('SOA').waitFor();
    // A name outside the zone's tree is REFUSED by the server (it serves no such zone).
    await panel.getByLabel('Name to ask').fill('example.org.');
    await panel.getByRole('button', { name: 'Ask DNS' }).click();
    await status.getByText('REFUSED').waitFor();
  });

  it('shows signed answers with DO once DNSSEC is on', async () => {
    expect((await v4(d, 'PATCH', `/zones/${zoneId}/dnssec`, { status: 'active' })).success).toBe(true);
    const panel = page.locator('section', { has: page.getByRole('heading', { name: 'What DNS answers now' }) });
    await panel.getByLabel('Name to ask').fill('www');
    await panel.getByLabel('With DNSSEC signatures (DO)').check();
    await panel.getByRole('button', { name: 'Ask DNS' }).click();
    await panel.locator('table.dns-answer td', { hasText: 'RRSIG' }).first().waitFor();
    expect(d.cspReports).toEqual([]);
  });
});
