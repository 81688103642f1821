/**
 * Prometheus itself (Debian's `prometheus` 2.x binary, run here with its own config and storage, never the
 * system service) scrapes a running Stratus's admin listener: the target is up and samples of the v4, S3 and
 * DNS metrics are queryable through Prometheus's HTTP API. `promtool check metrics` accepts the exposition.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, ListBucketsCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { dig } from '../dns-server/dig.js';
import { waitUntil } from '../faults/load.js';
import { freePort } from '../dns-server/ports.js';

let server: TestServer;
let prometheus: ChildProcess | undefined;
let promUrl: string;
let promOutput = '';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-prometheus-'));


async function promQuery(query: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = await res.json() as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  expect(body.status).toBe('success');
  return body.data.result;
}

beforeAll(async () => {
  server = await startTestServer();
  const sdk = server.sdk();
  await sdk.zones.create({ name: 'prometheus-scrape.example', account: { id: (await sdk.accounts.list()).result[0]!.id } });
  const s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'scraped' }));
  await s3.send(new ListBucketsCommand({}));
  await dig(server.dnsPort!, 'prometheus-scrape.example', 'SOA');

  const target = new URL(server.running.adminUrl!).host;
  fs.writeFileSync(path.join(tmp, 'prometheus.yml'), [
    'global:', '  scrape_interval: 1s', '  evaluation_interval: 1s',
    'scrape_configs:', '  - job_name: stratus', '    static_configs:', `      - targets: ['${target}']`, '',
  ].join('\n'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    promOutput = '';
    const child = spawn('prometheus', [`--config.file=${path.join(tmp, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(tmp, `data-${attempt}`)}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => { promOutput += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { promOutput += d.toString(); });
    let exited = false;
    child.once('exit', () => { exited = true; });
    prometheus = child;
    await waitUntil(async () => exited || (await fetch(`${promUrl}/-/ready`).then((r) => r.ok, () => false)), 60_000, 'prometheus to be ready');
    if (!exited) break;
    if (attempt > 3) throw new Error(`prometheus did not start:\n${promOutput}`);
  }
}, 120_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const done = new Promise((r) => prometheus!.once('exit', r));
    prometheus.kill('SIGTERM');
    await done;
  }
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe('Prometheus scraping Stratus', () => {
  it('finds the target up and queries v4, S3 and DNS samples', async () => {
    await waitUntil(async () => {
      const res = await (await fetch(`${promUrl}/api/v1/targets`)).json() as { data: { activeTargets: Array<{ health: string }> } };
      return res.data.activeTargets.some((t) => t.health === 'up');
    }, 60_000, 'the Stratus target to be up');
    await waitUntil(async () => (await promQuery('stratus_dns_queries_total{rcode="NOERROR",qtype="SOA"}')).length > 0, 60_000, 'a DNS sample');
    const up = await promQuery('up{job="stratus"}');
    expect(up[0]!.value[1]).toBe('1');
    const v4 = await promQuery('stratus_http_requests_total{listener="v4",route="/client/v4/zones",method="POST"}');
    expect(Number(v4[0]!.value[1])).toBeGreaterThanOrEqual(1);
    const s3 = await promQuery('sum by (route) (stratus_http_requests_total{listener="s3"})');
    expect(s3.map((r) => r.metric.route)).toEqual(expect.arrayContaining(['CreateBucket', 'ListBuckets']));
    const latency = await promQuery('histogram_quantile(0.5, sum by (le) (stratus_http_request_duration_seconds_bucket{listener="v4"}))');
    expect(Number(latency[0]!.value[1])).toBeGreaterThan(0);
    const cpu = await promQuery('process_cpu_seconds_total{job="stratus"}');
    expect(cpu.length).toBe(1);
  }, 120_000);

  it('passes promtool check metrics', async () => {
    const exposition = await (await fetch(`${server.running.adminUrl}/metrics`)).text();
    expect(() => execFileSync('promtool', ['check', 'metrics'], { input: exposition, stdio: ['pipe', 'pipe', 'pipe'] })).not.toThrow();
  });
});
