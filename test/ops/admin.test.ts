/**
 * The admin listener of a real Stratus: /healthz, /readyz and /metrics on their own port (never on the v4 or
 * S3 listeners), metrics that move with real traffic (official SDK, @aws-sdk/client-s3, dig), labels that never
 * carry a name, key, bucket or account id, and a second user who learns nothing through any of it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { dig } from '../dns-server/dig.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = server.running.adminUrl!;
}, 60_000);
afterAll(async () => { await server?.stop(); });

async function metrics(): Promise<string> {
  const res = await fetch(`${admin}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample (`name{labels}`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    const have = Object.fromEntries([...body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('admin listener', () => {
  it('answers /healthz and /readyz with every part named', async () => {
    const health = await fetch(`${admin}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${admin}/readyz`);
    const body = await ready.json() as { status: string; failing: string[]; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(ready.status).toBe(200);
    expect(body.status).toBe('ready');
    expect(body.failing).toEqual([]);
    expect(Object.keys(body.checks).sort()).toEqual(['blob-store', 'database', 'dns', 'migrations']);
    expect(body.checks.migrations!.detail).toMatch(/^\d+ applied$/);
  });

  it('serves nothing else, and only GET/HEAD', async () => {
    expect((await fetch(`${admin}/`)).status).toBe(404);
    expect((await fetch(`${admin}/client/v4/zones`)).status).toBe(404);
    expect((await fetch(`${admin}/metrics`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${admin}/readyz`, { method: 'HEAD' })).status).toBe(200);
  });

  it('is not reachable through the public listeners', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/client/v4/metrics']) {
      const v4 = await fetch(`${server.url}${path}`, { headers: { 'X-Auth-Email': server.email, 'X-Auth-Key': server.key } });
      expect(v4.status).toBe(404);
      expect(await v4.text()).not.toContain('stratus_');
      const s3 = await fetch(`${server.running.s3Url}${path}`);
      expect(s3.status).toBeGreaterThanOrEqual(400);
      expect(await s3.text()).not.toContain('stratus_');
    }
  });

  it('counts v4, S3 and DNS traffic by template, operation and type, with no tenant data in any label', async () => {
    const before = await metrics();
    const sdk = server.sdk();
    const zone = await sdk.zones.create({ name: 'metrics-owner.example', account: { id: (await sdk.accounts.list()).result[0]!.id } });
    await sdk.dns.records.create({ zone_id: zone.id, type: 'A', name: 'secret-host.metrics-owner.example', content: '192.0.2.7', ttl: 300 });
    await sdk.dns.records.list({ zone_id: zone.id });
    const s3 = testS3Client(server.running.s3Url!);
    await s3.send(new CreateBucketCommand({ Bucket: 'private-bucket-name' }));
    await s3.send(new PutObjectCommand({ Bucket: 'private-bucket-name', Key: 'secret/key.txt', Body: 'x'.repeat(1000) }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'private-bucket-name', Key: 'secret/key.txt' }));
    expect((await got.Body!.transformToString()).length).toBe(1000);
    expect((await dig(server.dnsPort!, 'secret-host.metrics-owner.example', 'A')).answer.length).toBe(1);
    expect((await dig(server.dnsPort!, 'nowhere.invalid', 'TXT')).status).toBe('REFUSED');
    expect((await dig(server.dnsPort!, 'metrics-owner.example', 'SOA', { tcp: true })).status).toBe('NOERROR');

    const after = await metrics();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('stratus_http_requests_total', { listener: 'v4', route: '/client/v4/zones', method: 'POST', status: '200' })).toBe(1);
    expect(delta('stratus_http_requests_total', { listener: 'v4', route: '/client/v4/zones/:zone_id/dns_records', method: 'GET', status: '200' })).toBe(1);
    expect(delta('stratus_http_requests_total', { listener: 's3', route: 'PutObject', method: 'PUT', status: '200' })).toBe(1);
    expect(delta('stratus_http_request_duration_seconds_count', { listener: 's3', route: 'GetObject', method: 'GET' })).toBe(1);
    expect(delta('stratus_http_response_body_bytes_total', { listener: 's3', route: 'GetObject' })).toBe(1000);
    expect(delta('stratus_store_operations_total', { operation: 'put', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(delta('stratus_store_bytes_in_total', { operation: 'put' })).toBe(1000);
    expect(delta('stratus_store_bytes_out_total', { operation: 'get' })).toBe(1000);
    expect(delta('stratus_dns_queries_total', { transport: 'udp', qtype: 'A', rcode: 'NOERROR' })).toBe(1);
    expect(delta('stratus_dns_queries_total', { transport: 'udp', qtype: 'TXT', rcode: 'REFUSED' })).toBe(1);
    expect(delta('stratus_dns_queries_total', { transport: 'tcp', qtype: 'SOA', rcode: 'NOERROR' })).toBe(1);
    expect(delta('stratus_zone_write_group_size_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(delta('stratus_dns_zone_update_duration_seconds_count', { kind: 'load' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'stratus_dns_zones', { state: 'served' })).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds \d/m);

    const accounts = (await sdk.accounts.list()).result.map((a) => a.id);
    for (const secret of ['metrics-owner', 'secret-host', 'private-bucket-name', 'secret/key', zone.id, ...accounts, server.key, server.email]) {
      expect(after).not.toContain(secret);
    }
  });

  it('shows a second user nothing: the admin listener takes no credentials and holds no tenant data', async () => {
    const other = await addUser(server, 'second-metrics@example.com');
    const zones = await other.sdk().zones.list();
    expect(zones.result).toEqual([]);
    const text = await (await fetch(`${admin}/metrics`, { headers: { 'X-Auth-Email': other.email, 'X-Auth-Key': other.key } })).text();
    expect(text).not.toContain('metrics-owner');
    expect(text).not.toContain(other.accountId);
  });
});

describe('readiness of the blob store', () => {
  it('answers 503 naming the blob store while its folder is gone, and 200 once it is back', async () => {
    const own = await startTestServer();
    try {
      const url = `${own.running.adminUrl}/readyz`;
      expect((await fetch(url)).status).toBe(200);
      const blobs = `${own.dataDir}/blobs`;
      fs.renameSync(blobs, `${blobs}.away`);
      const res = await fetch(url);
      const body = await res.json() as { failing: string[]; checks: Record<string, { ok: boolean; detail?: string }> };
      expect(res.status).toBe(503);
      expect(body.failing).toEqual(['blob-store']);
      expect(body.checks['blob-store']!.detail).toMatch(/ENOENT/);
      fs.renameSync(`${blobs}.away`, blobs);
      expect((await fetch(url)).status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});
