/** Zone-file export and import through HTTP: the official SDK (text field) and curl-style file parts. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';

type Any = any;

/** A multipart import with a real file part, as `curl --form file=@zone.txt` sends it. */
async function curlImport(server: TestServer, zoneId: string, text: string, proxied?: string): Promise<{ status: number; body: Any }> {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/plain' }), 'zone.txt');
  if (proxied !== undefined) form.append('proxied', proxied);
  const res = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/import`, {
    method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key }, body: form,
  });
  return { status: res.status, body: await res.json() };
}

/** Everything of a record that an export/import round trip must keep. */
function essence(r: Any): string {
  return JSON.stringify([r.name, r.type, r.content, r.priority ?? null, r.ttl, r.proxied, r.comment, [...r.tags].sort(), r.settings?.flatten_cname ?? false]);
}

async function allRecords(cf: Cloudflare, zoneId: string): Promise<string[]> {
  const page = await cf.dns.records.list({ zone_id: zoneId, per_page: 5000 } as Any);
  return page.result.map(essence).sort();
}

describe('zone file export and import', () => {
  let server: TestServer;
  let cf: Cloudflare;

  beforeAll(async () => {
    server = await startTestServer();
    cf = server.sdk();
  });
  afterAll(async () => { await server.stop(); });

  it('exports the production layout and round-trips every record into another zone', async () => {
    const src = await createZone(server, 'roundtrip.example');
    const bodies: Any[] = [
      { type: 'A', name: '@', content: '198.51.100.177', proxied: true },
      { type: 'A', name: 'auth', content: '198.51.100.178', proxied: true, comment: 'authentication dash' },
      { type: 'A', name: 'plain', content: '192.0.2.1', ttl: 3600, tags: ['team:dns', 'env:a,b=c'] },
      { type: 'AAAA', name: 'v6', content: '2001:db8::1', ttl: 600, comment: 'mentions cf_tags=inside' },
      { type: 'CNAME', name: 'www', content: 'roundtrip.example', proxied: true },
      { type: 'CNAME', name: 'flat', content: 'target.example.net', settings: { flatten_cname: true } },
      { type: 'MX', name: '@', content: 'mx.example.net', priority: 10 },
      { type: 'TXT', name: '@', content: '"v=spf1 include:_spf.example.net ~all"' },
      { type: 'TXT', name: 'long', content: `"${'a'.repeat(255)}" "${'b'.repeat(40)}"` },
      { type: 'NS', name: 'sub', content: 'ns1.other.example' },
      { type: 'SRV', name: '_sip._tcp', data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.net' } },
      { type: 'CAA', name: '@', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } },
      { type: 'URI', name: '_http', data: { weight: 1, target: 'https://example.net/' }, priority: 5 },
    ];
    for (const b of bodies) await cf.dns.records.create({ zone_id: src, ttl: 1, ...b } as Any);

    const text = await cf.dns.records.export({ zone_id: src });
    expect(text.startsWith(';;\n;; Domain:     roundtrip.example.\n;; Exported:   ')).toBe(true);
    expect(text).toContain(';; SOA Record\nroundtrip.example.\t3600\tIN\tSOA\tns1.stratus.invalid. dns.stratus.invalid. ');
    expect(text).toMatch(/ 10000 2400 604800 1800\n\n;; NS Records\nroundtrip\.example\.\t86400\tIN\tNS\tns1\.stratus\.invalid\.\n/);
    expect(text).toContain('roundtrip.example.\t1\tIN\tA\t198.51.100.177 ; cf_tags=cf-proxied:true\n');
    expect(text).toContain('auth.roundtrip.example.\t1\tIN\tA\t198.51.100.178 ; authentication dash cf_tags=cf-proxied:true\n');
    expect(text).toContain('flat.roundtrip.example.\t1\tIN\tCNAME\ttarget.example.net. ; cf_tags=cf-proxied:false,cf-flatten-cname\n');
    expect(text).toContain(';; MX Records\nroundtrip.example.\t1\tIN\tMX\t10 mx.example.net.\n');
    const sections = [...text.matchAll(/^;; (\w+) Records$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['NS', 'A', 'AAAA', 'CAA', 'CNAME', 'MX', 'SRV', 'TXT', 'URI']);

    // An independent zone-file parser (PowerDNS zone2json) loads the export as-is.
    const file = path.join(server.dataDir, 'export.zone');
    fs.writeFileSync(file, text);
    const loaded = JSON.parse(execFileSync('zone2json', [`--zone=${file}`, '--zone-name=roundtrip.example'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { records: { name: string; type: string; content: string; ttl: number }[] };
    expect(loaded.records).toHaveLength(bodies.length + 3);
    expect(loaded.records.filter((r) => r.type === 'SOA' || r.type === 'NS').map((r) => r.name)).toEqual(['roundtrip.example.', 'roundtrip.example.', 'roundtrip.example.', 'sub.roundtrip.example.']);
    expect(loaded.records.find((r) => r.name === 'long.roundtrip.example.')!.content).toBe(`"${'a'.repeat(255)}" "${'b'.repeat(40)}"`);

    const dst = await createZone(server, 'roundtrip.example.net');
    // Same relative content in another zone: rewrite the origin.
    const moved = text.replaceAll('roundtrip.example.', 'roundtrip.example.net.');
    const res = await cf.dns.records.import({ zone_id: dst, file: moved });
    expect(res).toEqual({ recs_added: bodies.length, total_records_parsed: bodies.length });
    const norm = (s: string[]) => s.map((x) => x.replaceAll('roundtrip.example.net', 'roundtrip.example'));
    expect(norm(await allRecords(cf, dst))).toEqual(await allRecords(cf, src));

    // Importing the same file again adds nothing (identical records are counted, not duplicated).
    expect(await cf.dns.records.import({ zone_id: dst, file: moved })).toEqual({ recs_added: 0, total_records_parsed: bodies.length });
  });

  it('imports a curl-style file part with $ORIGIN, $TTL, $GENERATE, relative names and the proxied form value', async () => {
    const zoneId = await createZone(server, 'curl.example');
    const file = [
      '$ORIGIN curl.example.',
      '$TTL 1h',
      '@ IN SOA ns.x. host.x. 1 2 3 4 5',
      '@ IN NS ns1.elsewhere.example.',
      '@ A 192.0.2.1',
      'www CNAME @',
      'dns-only A 192.0.2.2 ; cf_tags=cf-proxied:false',
      'mail 300 IN MX 10 mx.curl.example.',
      '$GENERATE 1-3 host$ A 192.0.2.$',
      'txt TXT ( "one"',
      '          "two" )',
    ].join('\n');
    const res = await curlImport(server, zoneId, file, 'true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, result: { recs_added: 8, total_records_parsed: 8 } });
    const recs = (await cf.dns.records.list({ zone_id: zoneId, per_page: 100 } as Any)).result as Any[];
    const by = (name: string, type: string) => recs.find((r) => r.name === name && r.type === type);
    expect(by('curl.example', 'A')).toMatchObject({ proxied: true, ttl: 1 });
    expect(by('www.curl.example', 'CNAME')).toMatchObject({ proxied: true, content: 'curl.example' });
    expect(by('dns-only.curl.example', 'A')).toMatchObject({ proxied: false, ttl: 3600 });
    expect(by('mail.curl.example', 'MX')).toMatchObject({ proxied: false, ttl: 300, priority: 10 });
    expect(by('host2.curl.example', 'A')).toMatchObject({ content: '192.0.2.2' });
    expect(by('txt.curl.example', 'TXT').content).toBe('"one" "two"');
    expect(recs.some((r) => r.type === 'NS' || r.type === 'SOA')).toBe(false);
  });

  it('fails a bad line with its number and applies nothing', async () => {
    const zoneId = await createZone(server, 'atomic.example');
    const file = 'ok1 A 192.0.2.1\nok2 A 192.0.2.2\nbad A 999.0.2.3\nok3 A 192.0.2.4\n';
    const err = await cf.dns.records.import({ zone_id: zoneId, file }).then(() => undefined, (e: unknown) => e) as Any;
    expect(err).toBeInstanceOf(Cloudflare.BadRequestError);
    expect(err.errors[0].message).toMatch(/^Zone file line 3: /);
    expect((await cf.dns.records.list({ zone_id: zoneId } as Any)).result).toEqual([]);

    const syntax = await curlImport(server, zoneId, 'a A 192.0.2.1\n$INCLUDE other.zone\n');
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors[0]).toEqual({ code: 1211, message: 'Zone file line 2: $INCLUDE directive not allowed' });

    // The first failing line is reported, whether it conflicts (line 2) or is invalid (line 3).
    const conflict = await curlImport(server, zoneId, 'sub NS ns1.example.net.\nsub A 192.0.2.1\nz A bad\n');
    expect(conflict.body.errors[0].code).toBe(81056);
    expect(conflict.body.errors[0].message).toMatch(/^Zone file line 2: /);

    const oldForm = new FormData();
    oldForm.append('file', 'a A 192.0.2.1\nb A 10.0.0.999\n');
    const old = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/import`, { method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key, 'api-version': '2024-09-30' }, body: oldForm });
    const oldBody = (await old.json()) as Any;
    expect(oldBody.errors[0].code).toBe(1004);
    expect(oldBody.errors[0].error_chain[0].message).toMatch(/^Zone file line 2: /);

    const outside = await curlImport(server, zoneId, 'www.other.example. A 192.0.2.1\n');
    expect(outside.body.errors[0].message).toBe('Zone file line 1: owner name www.other.example is outside the zone atomic.example');
    expect((await cf.dns.records.list({ zone_id: zoneId } as Any)).result).toEqual([]);
  });

  it('accepts 262,144 bytes and refuses one byte more; refuses bad forms clearly', async () => {
    const zoneId = await createZone(server, 'limit.example');
    let file = '';
    for (let i = 0; file.length < 262_144 - 40; i++) file += `h${i} A 192.0.${(i >> 8) & 255}.${i & 255}\n`;
    file += ';'.padEnd(262_144 - file.length - 1, 'x') + '\n';
    expect(Buffer.byteLength(file)).toBe(262_144);
    const okRes = await curlImport(server, zoneId, file);
    expect(okRes.status).toBe(200);
    expect(okRes.body.result.recs_added).toBeGreaterThan(10_000);

    const big = await curlImport(server, zoneId, `${file};`);
    expect(big.status).toBe(413);
    expect(big.body.errors[0].code).toBe(1212);
    expect(big.body.errors[0].message).toMatch(/262145 bytes; at most 262144/);

    // A chunked upload (no Content-Length) is cut off while streaming.
    const chunk = new TextEncoder().encode(`${'x'.repeat(1023)}\n`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({ pull(ctrl) { if (sent++ < 400) ctrl.enqueue(chunk); else ctrl.close(); } });
    const chunked = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/import`, {
      method: 'POST', body: stream, duplex: 'half',
      headers: { 'x-auth-email': server.email, 'x-auth-key': server.key, 'content-type': 'multipart/form-data; boundary=b' },
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const chunkedBody = (await chunked.json()) as Any;
    expect(chunkedBody.errors[0].code).toBe(1212);
    expect(chunkedBody.errors[0].message).toMatch(/^The request body is larger than \d+ bytes; at most 262144 bytes/);

    const noFile = await api(server, 'POST', `/zones/${zoneId}/dns_records/import`, undefined, {});
    expect(noFile.body.errors[0].code).toBe(1213);
    const form = new FormData();
    form.append('file', 'a A 192.0.2.1');
    form.append('proxied', 'yes');
    const badProxied = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/import`, { method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key }, body: form });
    expect(badProxied.status).toBe(400);
    expect(((await badProxied.json()) as Any).errors[0].code).toBe(1214);
  });

  it('export errors are envelopes', async () => {
    const res = await api(server, 'GET', '/zones/00000000000000000000000000000000/dns_records/export');
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe(7003);
  });
});
