/**
 * The dashboard's bucket pages in Chromium (harness.ts): a bucket created, the CORS rule for uploads in parts, a
 * 20 MB object uploaded in 3 parts over the S3 API (signed in the page with the token's key pair) and downloaded
 * byte for byte, an upload cancelled during its second part (nothing left in progress, checked with the AWS SDK),
 * a small object in one v4 request with an HTML key shown as text, custom metadata sent on upload and shown on the
 * object's page, CORS rules saved and a custom domain added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { apiZone, checkAccessibility, go, HAS_CHROMIUM, signInWithToken, startDashboard, stopDashboard, TOKEN, v4, XSS, type Dashboard } from './harness.js';

const ZONE = 'dash-buckets.example';
let d: Dashboard;
let page: Page;

describe.skipIf(!HAS_CHROMIUM)('dashboard bucket pages in Chromium', () => {
  beforeAll(async () => {
    d = await startDashboard();
    page = d.page;
    await apiZone(d, ZONE);
    await signInWithToken(d, TOKEN);
  }, 90_000);
  afterAll(async () => {
    await stopDashboard(d);
  });

  it('creates a bucket, uploads and downloads a 20 MB object, and shows an HTML object key as text', async () => {
    await go(d, '#/buckets', 'Buckets');
    await page.getByLabel('Bucket name').fill('dash-bucket');
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('link', { name: 'dash-bucket' }).click();
    await page.getByRole('heading', { level: 1, name: 'dash-bucket' }).waitFor();

    // Uploads in parts go to the S3 listener (another origin), signed with the token's key pair: a CORS rule first.
    await page.getByRole('button', { name: 'Allow this page to upload in parts (adds a CORS rule)' }).click();
    await expect.poll(async () => (await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/cors`)).result?.rules?.[0]?.allowed?.origins).toEqual([d.base]);
    const big = randomBytes(20 * 1024 * 1024);
    // Chosen from a file on disk: the browser reads it itself (a 20 MB buffer would be sent base64 through the
    // protocol and rebuilt in the page, which took over 30 s on a loaded CI machine).
    const bigFile = path.join(d.dir, 'big.bin');
    fs.writeFileSync(bigFile, big);
    await page.getByLabel('File', { exact: true }).setInputFiles(bigFile);
    await page.getByLabel("Key (default: the file's name)").fill('folder/big.bin');
    await page.getByRole('checkbox', { name: /In parts over the S3 API/ }).check();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('Uploaded folder/big.bin in 3 parts over the S3 API.').waitFor({ timeout: 30_000 });
    const stored = (await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/objects?prefix=folder/`)).result[0];
    expect(stored).toMatchObject({ key: 'folder/big.bin', size: big.length });
    expect(stored.etag).toMatch(/-3$/); // a multipart ETag: three parts
    await page.getByRole('button', { name: 'folder/', exact: true }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download folder/big.bin' }).click();
    const download = await downloading;
    const saved = path.join(d.dir, 'downloaded.bin');
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
    const tokenId = (await (await fetch(`${d.base}/client/v4/user/tokens/verify`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).result.id;
    const s3 = new S3Client({ endpoint: `http://127.0.0.1:${d.s3Port}`, region: 'auto', forcePathStyle: true,
      credentials: { accessKeyId: tokenId, secretAccessKey: createHash('sha256').update(TOKEN).digest('hex') } });
    await expect.poll(async () => (await s3.send(new ListMultipartUploadsCommand({ Bucket: 'dash-bucket' }))).Uploads ?? []).toEqual([]);
    expect((await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/objects?prefix=cancelled`)).result).toEqual([]);
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
    expect((await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/cors`)).result.rules[0].allowed).toMatchObject(cors.rules[0]!.allowed);
    await page.getByLabel('Custom domain').fill(`files.${ZONE}`);
    await page.getByRole('combobox', { name: /^In zone/ }).selectOption({ label: ZONE });
    await page.getByRole('button', { name: 'Add custom domain' }).click();
    await page.getByRole('cell', { name: `files.${ZONE}`, exact: true }).waitFor();
    expect((await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/domains/custom`)).result.domains.map((d: any) => d.domain)).toEqual([`files.${ZONE}`]);
    await checkAccessibility(d, '09-bucket');
    await go(d, '#/buckets', 'Buckets');
    await checkAccessibility(d, '10-buckets');
  });


  it('sends custom and HTTP metadata on upload (v4 in one request, S3 in parts) and shows them on the object\'s details', async () => {
    await go(d, '#/buckets/dash-bucket', 'dash-bucket');
    const upload = page.locator('form', { hasText: 'Upload an object' });
    await upload.getByLabel('File', { exact: true }).setInputFiles({ name: 'meta.txt', mimeType: 'text/plain', buffer: Buffer.from('meta') });
    await upload.getByLabel("Key (default: the file's name)").fill('meta.txt');
    await upload.getByRole('button', { name: 'Add metadata' }).click();
    await upload.getByLabel('Metadata key 1').fill('owner');
    await upload.getByLabel('Metadata value 1').fill(`team-a ${XSS}`);
    await upload.getByRole('button', { name: 'Add metadata' }).click();
    await upload.getByLabel('Metadata key 2').fill('note');
    await upload.getByLabel('Metadata value 2').fill('crème ☕');
    await upload.getByLabel('Cache-Control').fill('max-age=60');
    await upload.getByLabel('Content-Disposition').fill('attachment; filename="m.txt"');
    await upload.getByRole('checkbox', { name: /In parts over the S3 API/ }).uncheck();
    await upload.getByRole('button', { name: 'Upload', exact: true }).click();
    await upload.getByText('Uploaded meta.txt.').waitFor();
    const listed = (await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/objects?prefix=meta`)).result[0];
    expect(listed.custom_metadata).toEqual({ owner: `team-a ${XSS}`, note: 'crème ☕' });
    expect(listed.http_metadata).toMatchObject({ contentType: 'text/plain', cacheControl: 'max-age=60', contentDisposition: 'attachment; filename="m.txt"' });
    await page.getByRole('button', { name: 'Details of meta.txt' }).click();
    const details = page.getByRole('region', { name: 'Object details' });
    await details.getByText(`team-a ${XSS}`, { exact: true }).waitFor();
    await details.getByText('crème ☕', { exact: true }).waitFor();
    await details.getByText('max-age=60', { exact: true }).waitFor();
    expect(await details.locator('img').count()).toBe(0);
    await checkAccessibility(d, '09-object-metadata');

    // In parts over the S3 API: x-amz-meta-* on CreateMultipartUpload (keys lower-cased, as S3 keeps them).
    // (The CORS rules saved above replaced the page's rule: add it again.)
    await page.getByRole('button', { name: 'Allow this page to upload in parts (adds a CORS rule)' }).click();
    await expect.poll(async () => (await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/cors`)).result?.rules?.some((r: any) => r.id === 'stratus-dashboard')).toBe(true);
    await upload.getByLabel('File', { exact: true }).setInputFiles({ name: 'parts.bin', mimeType: 'application/octet-stream', buffer: randomBytes(1024) });
    await upload.getByLabel("Key (default: the file's name)").fill('parts.bin');
    await upload.getByRole('checkbox', { name: /In parts over the S3 API/ }).check();
    await upload.getByRole('button', { name: 'Add metadata' }).click();
    await upload.getByLabel('Metadata key 1').fill('Project');
    await upload.getByLabel('Metadata value 1').fill('naïve');
    await upload.getByLabel('Content-Language').fill('fr');
    await upload.getByRole('button', { name: 'Upload', exact: true }).click();
    await upload.getByRole('alert').getByText(/printable ASCII only/).waitFor();
    await upload.getByLabel('Metadata value 1').fill('stratus');
    await upload.getByRole('button', { name: 'Upload', exact: true }).click();
    await upload.getByText('Uploaded parts.bin in 1 parts over the S3 API.').waitFor();
    const parts = (await v4(d, 'GET', `/accounts/${d.account}/r2/buckets/dash-bucket/objects?prefix=parts`)).result[0];
    expect(parts.custom_metadata).toEqual({ project: 'stratus' });
    expect(parts.http_metadata).toMatchObject({ contentType: 'application/octet-stream', contentLanguage: 'fr' });
    expect(d.cspReports).toEqual([]);
  });
});
