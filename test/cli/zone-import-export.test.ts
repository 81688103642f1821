/**
 * `stratus zone import` and `stratus zone export` (the built CLI, dist/) against a real Stratus: a file larger
 * than the API's per-request cap goes in several requests at record boundaries ($ORIGIN, $TTL and a reused
 * owner carried over), progress lines while not on a terminal, errors naming the file's line (found locally
 * or by the server in a later piece), and a second user's token reaching nothing of the admin's zone.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { runCli } from './run-cli.js';
import { MAX_ZONE_FILE_BYTES } from '../../src/zones/zonefile/import.js';
import { parseZoneFile } from '../../src/zones/zonefile/parser.js';

const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';
const ZONE_READ = 'c8fed203ed3043cba015a93ad1616f1f';

let server: TestServer;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-zone-cli-'));
  env = { CLOUDFLARE_API_BASE_URL: server.apiBase, CLOUDFLARE_EMAIL: server.email, CLOUDFLARE_API_KEY: server.key };
});

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function newZone(name: string): Promise<string> {
  const cf = server.sdk();
  const [account] = (await cf.accounts.list()).result;
  return (await cf.zones.create({ account: { id: account!.id }, name })).id;
}

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** A zone file of `n` records (and a proxied CNAME) over several origins and TTLs, with owners reused by indented lines. */
function bigZoneFile(n: number): string {
  // A proxied CNAME must lead to an address: its target is in the last request, so the CNAME goes after it.
  const lines = ['; a large zone', '$TTL 300', '@ IN NS ns1.stratus.invalid.', `alias 1 IN CNAME host-${n - 3}.sub.big.example. ; cf_tags=cf-proxied:true`];
  for (let i = 0; i < n; i++) {
    if (i === Math.floor(n / 2)) lines.push('$ORIGIN sub.big.example.', '$TTL 1h');
    if (i % 3 === 2) lines.push(`\tIN TXT "second record of the owner above, number ${i}, padding padding padding"`);
    else lines.push(`host-${i} IN A 192.0.2.${i % 250} ; record ${i} cf_tags=n:${i}`);
  }
  return lines.join('\n') + '\n';
}

/** The records of a zone file as comparable strings (name, type, TTL, RDATA). */
function recordSet(text: string, zone: string): string[] {
  return parseZoneFile(text, zone)
    .filter((r) => r.type !== 'SOA' && !(r.type === 'NS' && r.name === zone))
    .map((r) => `${r.name} ${r.type} ${r.ttl} ${r.rdata.join(' ')}`).sort();
}

describe('stratus zone import / export', () => {
  it('imports a file larger than the per-request cap in several requests, showing progress, and exports it back', async () => {
    const zone = 'big.example';
    await newZone(zone);
    const text = bigZoneFile(9000);
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_ZONE_FILE_BYTES * 2);
    const file = path.join(dir, 'big.zone');
    fs.writeFileSync(file, text);

    const r = await runCli(['zone', 'import', '--zone', zone, file], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/imported .*big\.zone into big\.example: 9001 records added, 0 already there \(3 requests\)/);
    const progress = r.stderr.split('\n').filter((l) => l.startsWith('importing big.example: '));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toBe('importing big.example: 9001/9001 records (100%)');

    const out = path.join(dir, 'big.out.zone');
    const e = await runCli(['zone', 'export', '--zone', zone, '--out', out], env);
    expect(e.code, e.stderr).toBe(0);
    expect(recordSet(fs.readFileSync(out, 'utf8'), zone)).toEqual(recordSet(text, zone));

    // Importing the same file again adds nothing.
    const again = await runCli(['zone', 'import', '--zone', zone, file], env);
    expect(again.stdout).toContain('0 records added, 9001 already there');
    // Export without --out writes the zone file on stdout.
    const stdout = await runCli(['zone', 'export', '--zone', zone], env);
    expect(recordSet(stdout.stdout, zone)).toEqual(recordSet(text, zone));
  }, 180_000);

  it('names the line of a bad record: a syntax error found locally before anything is sent, a refused value by the server', async () => {
    const zone = 'bad.example';
    const zoneId = await newZone(zone);
    const file = path.join(dir, 'bad.zone');
    fs.writeFileSync(file, '$TTL 300\nwww IN A 192.0.2.1\n\n; a comment\nmail IN BOGUS 1.2.3.4\n');
    const r = await runCli(['zone', 'import', '--zone', zone, file], env);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(`stratus: ${file}:5: unsupported record type "BOGUS": use one of A, AAAA, CAA, CERT, CNAME, DNSKEY, DS, HTTPS, LOC, MX, NAPTR, NS, OPENPGPKEY, PTR, SMIMEA, SRV, SSHFP, SVCB, TLSA, TXT, URI (code 1210)\n`);
    fs.writeFileSync(file, '$TTL 300\nwww IN A 192.0.2.1\n\n; a comment\nmail IN A 300.1.2.3\n');
    const v = await runCli(['zone', 'import', '--zone', zone, file], env);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(new RegExp(`\\nstratus zone import: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5: .*\\(code \\d+\\); nothing was imported\\n$`));
    expect((await server.sdk().dns.records.list({ zone_id: zoneId })).result).toEqual([]);
  });

  it('names the line of a record the server refuses in a later request, with what was imported before it', async () => {
    const zone = 'conflict.example';
    const zoneId = await newZone(zone);
    await server.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: `taken.${zone}`, content: '192.0.2.1', ttl: 300 });
    const lines = ['$TTL 300'];
    for (let i = 0; i < 6000; i++) lines.push(`h${i} IN TXT "${'x'.repeat(40)} ${i}"`);
    lines.push('taken IN CNAME elsewhere.example.');
    const file = path.join(dir, 'conflict.zone');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const r = await runCli(['zone', 'import', '--zone', zone, file], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${path.basename(file)}:6002: .*\\(code \\d+\\); the records before it are imported \\(\\d+ added\\)`));
  }, 120_000);

  it("refuses a second user's token the admin's zone, clearly, and imports nothing", async () => {
    const zone = 'owned.example';
    const zoneId = await newZone(zone);
    const second = await addUser(server, 'zone-cli-second@example.com');
    const token = await second.sdk().user.tokens.create({
      name: 'zone tools', policies: [{ effect: 'allow', permission_groups: [{ id: DNS_WRITE }, { id: ZONE_READ }], resources: { [`com.cloudflare.api.account.${second.accountId}`]: '*' } }],
    });
    const file = path.join(dir, 'owned.zone');
    fs.writeFileSync(file, 'www IN A 192.0.2.7\n');
    const auth = { CLOUDFLARE_API_BASE_URL: server.apiBase, CLOUDFLARE_API_TOKEN: token.value! };
    const r = await runCli(['zone', 'import', '--zone', zone, file], auth);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`stratus zone import: no zone owned.example among the zones the API token can see at ${server.apiBase}: check --zone, or use the credentials of the account that owns it\n`);
    const e = await runCli(['zone', 'export', '--zone', zone], auth);
    expect(e.code).toBe(1);
    expect(e.stdout).toBe('');
    expect((await server.sdk().dns.records.list({ zone_id: zoneId })).result).toEqual([]);
    // The admin's own credentials import it.
    expect((await runCli(['zone', 'import', '--zone', zone, file], env)).code).toBe(0);
  });

  it('imports proxiable records proxied with --proxied, with an API token from --token', async () => {
    const zone = 'proxied.example';
    const zoneId = await newZone(zone);
    const file = path.join(dir, 'proxied.zone');
    fs.writeFileSync(file, '$TTL 300\nwww IN A 192.0.2.8\nwww IN TXT "not proxiable"\n');
    const token = await server.sdk().user.tokens.create({
      name: 'zone tools', policies: [{ effect: 'allow', permission_groups: [{ id: DNS_WRITE }, { id: ZONE_READ }], resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' } }],
    });
    const r = await runCli(['zone', 'import', '--zone', zone, '--proxied', '--api-url', server.apiBase, '--token', token.value!, file]);
    expect(r.code, r.stderr).toBe(0);
    const list = (await server.sdk().dns.records.list({ zone_id: zoneId })).result;
    expect(list.map((x) => [x.type, x.proxied]).sort()).toEqual([['A', true], ['TXT', false]]);
  });

  it('says what is missing: credentials, --zone, a reachable server', async () => {
    const noCreds = await runCli(['zone', 'export', '--zone', 'x.example'], { CLOUDFLARE_API_BASE_URL: server.apiBase });
    expect(noCreds).toMatchObject({ code: 2, stdout: '' });
    expect(noCreds.stderr).toMatch(/^stratus: no credentials: set CLOUDFLARE_API_TOKEN/);
    expect((await runCli(['zone', 'export'], env)).stderr).toBe('stratus: stratus zone export needs --zone NAME; see stratus zone export --help\n');
    const port = await closedPort();
    const down = await runCli(['zone', 'export', '--zone', 'x.example', '--api-url', `http://127.0.0.1:${port}/client/v4`], env);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(new RegExp(`^stratus zone export: cannot reach http://127\\.0\\.0\\.1:${port}/client/v4 \\(ECONNREFUSED\\): is stratus serve running there\\?`));
  });
});
