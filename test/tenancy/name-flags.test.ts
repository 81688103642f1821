/**
 * The operator's side of the names nobody may add: listener names (`--s3-domain`) are reserved with the
 * names below them, and `--zone-name-allow` exempts a name and what lies below it (and nothing else).
 */
import type Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { loadConfig } from '../../src/config/config.js';
import { addZone, errorCode } from './helpers.js';

let server: TestServer;
let sdk: Cloudflare;
let account: string;

beforeAll(async () => {
  server = await startTestServer({ flags: { 's3-domain': 'S3.Files.Test', 'nameservers': 'ns1.dns.operator.test,ns2.dns.operator.test', 'zone-name-allow': 'github.io,Operator.Test.' } });
  sdk = server.sdk();
  account = await accountId(server);
});

afterAll(async () => {
  await server?.stop();
});

describe('operator flags for zone names', () => {
  it('parses --zone-name-allow into lowercase names without trailing dots', () => {
    expect(loadConfig({ 'zone-name-allow': ' Stratus.Invalid. , co.uk' }).zoneNameAllow).toEqual(['stratus.invalid', 'co.uk']);
    expect(loadConfig({}).zoneNameAllow).toEqual([]);
  });

  it('reserves the S3 domain and the names below it', async () => {
    for (const name of ['s3.files.test', 'bucket.s3.files.test']) expect(await errorCode(sdk.zones.create({ account: { id: account }, name, type: 'full' })), name).toBe(1093);
    expect((await addZone(sdk, account, 'files.test')).status).toBe('active');
  });

  it('allowed names (and names below them) may be added; others stay refused', async () => {
    expect((await addZone(sdk, account, 'operator.test')).status).toBe('active');
    expect((await addZone(sdk, account, 'ns1.dns.operator.test')).status).toBe('active');
    expect((await addZone(sdk, account, 'github.io')).status).toBe('active');
    expect(await errorCode(sdk.zones.create({ account: { id: account }, name: 'co.uk', type: 'full' }))).toBe(1099);
  });
});
