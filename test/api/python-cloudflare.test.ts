/** Debian's python3-cloudflare doing what certbot's dns-cloudflare plugin does. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const available = fs.existsSync(PYTHON) && fs.existsSync('/usr/lib/python3/dist-packages/CloudFlare');

/** Production's id of the DNS Write permission group. */
const DNS_WRITE_GROUP = '4755a26eedb94da69e1066d98aa820be';

describe.skipIf(!available)('python3-cloudflare (certbot calls)', () => {
  let server: TestServer;
  let home: string;
  beforeAll(async () => {
    server = await startTestServer();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-pyhome-'));
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it.each(['global key', 'API token'])('looks the zone up by name, creates the TXT record, finds it with a filtered list and deletes it (%s)', async (how) => {
    const zone = how === 'API token' ? 'certbot-token.example' : 'certbot-py.example';
    const zoneId = await createZone(server, zone);
    const credentials = how === 'API token'
      ? { STRATUS_TOKEN: (await server.sdk().user.tokens.create({ name: 'certbot', policies: [{ effect: 'allow', permission_groups: [{ id: DNS_WRITE_GROUP }], resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' } }] })).value! }
      : { STRATUS_EMAIL: server.email, STRATUS_KEY: server.key };
    const { stdout } = await run(PYTHON, [path.join(import.meta.dirname, 'python/certbot_flow.py')], {
      cwd: home,
      env: { PATH: '/usr/bin:/bin', HOME: home, CLOUDFLARE_API_URL: server.apiBase, ...credentials, ZONE: zone },
    });
    const out = JSON.parse(stdout) as Record<string, any>;
    expect(out.sub_lookup).toEqual([]);
    expect(out.zone_names).toEqual([zone]);
    expect(out.created).toEqual({ name: `_acme-challenge.www.${zone}`, type: 'TXT', content: '"certbot-token-Abc_123"', ttl: 120 });
    expect(out.found_ids).toEqual([out.created_id]);
    expect(out.deleted).toEqual({ id: out.created_id });
    expect(out.after).toEqual([]);
    expect(out.missing).toBe(81044);
  });
});
