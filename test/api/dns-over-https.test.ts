/**
 * DNS-over-HTTPS (RFC 8484) on the v4 listener, asked by a real client, `kdig +https` (POST) and `+https-get`
 * (GET), whose answers must be dig's over UDP. kdig speaks DoH over HTTP/2 only, and the v4 listener speaks
 * HTTP/1.1, so kdig goes through nginx (TLS and HTTP/2, proxying to Stratus), as a deployment behind a proxy
 * does. Also: the JSON form in the shape of production's resolver JSON API; a second user's zone answered with
 * no credential at all (public data, as on port 53) and names of no zone REFUSED; the HTTP errors of RFC 8484;
 * the v4 request rate per client address.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { makeCa, makeServerCert } from '../helpers/tls-certs.js';
import { stopChild } from '../helpers/stop-child.js';
import { freePort } from '../dns-server/ports.js';
import { dig } from '../dns-server/dig.js';
import { jsonQuery } from '../../src/api/dns-json.js';

const run = promisify(execFile);
const ZONE = 'doh.example';
const OTHER = 'doh-other.example';
let dir: string;
let ca: string;
let server: TestServer;
let nginx: ChildProcess;
let proxyPort: number;

interface Answer { status: number; headers: Headers; body: Buffer }

/** One request to the v4 listener, without any credential. */
async function request(pathAndQuery: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer; to?: TestServer } = {}): Promise<Answer> {
  const res = await fetch(new URL(pathAndQuery, (opts.to ?? server).url), { method: opts.method ?? 'GET', headers: opts.headers, body: opts.body ? new Uint8Array(opts.body) : undefined });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const json = (name: string, type: string, extra = '') => request(`/dns-query?name=${encodeURIComponent(name)}&type=${type}${extra}`, { headers: { accept: 'application/dns-json' } })
  .then((r) => ({ ...r, json: JSON.parse(r.body.toString()) as Record<string, any> }));

/** kdig over DoH through the proxy; POST unless `get`. */
async function kdig(name: string, type: string, opts: { get?: boolean; extra?: string[] } = {}): Promise<string> {
  const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(proxyPort), '+https=/dns-query', ...(opts.get ? ['+https-get'] : []), `+tls-ca=${ca}`, '+tls-hostname=localhost',
    '+norec', '+time=5', '+retry=1', ...(opts.extra ?? []), name, type], { timeout: 30_000 });
  return stdout;
}

/** The answer section lines of kdig's output, as the dig helper shows them. */
function answerLines(out: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => /^;; ANSWER SECTION:/.test(l));
  if (start < 0) return [];
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => l.trim() === '' || l.startsWith(';;'));
  return rest.slice(0, end < 0 ? undefined : end).map((l) => l.trim().split(/\s+/).join(' '));
}

/** nginx terminating TLS with HTTP/2 on `port` and proxying to the v4 listener. */
async function startProxy(port: number, cert: { cert: string; key: string }, upstream: string): Promise<ChildProcess> {
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log;
events {}
http {
  access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate ${cert.cert}; ssl_certificate_key ${cert.key};
    location / { proxy_pass ${upstream}; proxy_http_version 1.1; }
  }
}
`);
  const child = spawn('nginx', ['-p', dir, '-c', conf, '-e', path.join(dir, 'nginx-error.log')], { stdio: 'ignore' });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${fs.readFileSync(path.join(dir, 'nginx-error.log'), 'utf8')}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-doh-'));
  ca = makeCa(dir);
  const pair = makeServerCert(dir, 'server', '0d0a');
  server = await startTestServer();
  proxyPort = await freePort();
  nginx = await startProxy(proxyPort, pair, server.url);
  const zoneId = await createZone(server, ZONE);
  const rr = (r: Record<string, unknown>) => server.sdk().dns.records.create({ zone_id: zoneId, ttl: 300, ...r } as never);
  await rr({ type: 'A', name: `www.${ZONE}`, content: '192.0.2.10' });
  await rr({ type: 'AAAA', name: `www.${ZONE}`, content: '2001:db8::10' });
  await rr({ type: 'MX', name: ZONE, content: `mail.${ZONE}`, priority: 10 });
  await rr({ type: 'TXT', name: `txt.${ZONE}`, content: '"hello \\"doh\\"" "second"' });
  await rr({ type: 'CNAME', name: `alias.${ZONE}`, content: `www.${ZONE}` });
  await rr({ type: 'CAA', name: ZONE, data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } });
  await rr({ type: 'SRV', name: `_sip._tcp.${ZONE}`, data: { priority: 1, weight: 2, port: 5060, target: `sip.${ZONE}` } });
  await server.sdk().dns.dnssec.edit({ zone_id: zoneId, status: 'active' });
  // A second user's zone: served to anyone, like on port 53.
  const other = await addUser(server, 'doh-other@example.com');
  const otherAccount = (await other.sdk().accounts.list()).result[0]!.id;
  const otherZone = await other.sdk().zones.create({ account: { id: otherAccount }, name: OTHER });
  await other.sdk().dns.records.create({ zone_id: otherZone.id, type: 'A', name: `www.${OTHER}`, content: '198.51.100.7', ttl: 120 } as never);
}, 60_000);
afterAll(async () => {
  if (nginx) await stopChild(nginx);
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('DNS-over-HTTPS, wire format, asked by kdig', () => {
  it('answers as the UDP server does, over POST and GET, for every common type', async () => {
    for (const [name, type] of [[`www.${ZONE}`, 'A'], [`www.${ZONE}`, 'AAAA'], [ZONE, 'MX'], [`txt.${ZONE}`, 'TXT'], [`alias.${ZONE}`, 'A'], [ZONE, 'CAA'], [`_sip._tcp.${ZONE}`, 'SRV']] as const) {
      const udp = await dig(server.dnsPort!, name, type);
      expect(udp.answer.length, `${name} ${type}`).toBeGreaterThan(0);
      const post = await kdig(name, type);
      expect(post).toMatch(/HTTP session \(HTTP\/2-POST\)-\(localhost\/dns-query\)-\(status: 200\)/);
      expect(post).toMatch(/status: NOERROR/);
      expect(answerLines(post)).toEqual(udp.answer);
      const get = await kdig(name, type, { get: true });
      expect(get).toMatch(/HTTP session \(HTTP\/2-GET\)/);
      expect(answerLines(get)).toEqual(udp.answer);
    }
  });

  it('signs with the DO bit on a DNSSEC zone, and not without it', async () => {
    const signed = await kdig(`www.${ZONE}`, 'A', { extra: ['+dnssec'] });
    expect(answerLines(signed).some((l) => l.includes(' RRSIG A 13 '))).toBe(true);
    const udp = await dig(server.dnsPort!, `www.${ZONE}`, 'A', { extra: ['+dnssec'] });
    expect(answerLines(signed).filter((l) => !l.includes('RRSIG'))).toEqual(udp.answer.filter((l) => !l.includes('RRSIG')));
    expect(answerLines(await kdig(`www.${ZONE}`, 'A')).some((l) => l.includes('RRSIG'))).toBe(false);
  });

  it('answers a second user\'s zone with no credential; a name of no zone is REFUSED; transfers are REFUSED', async () => {
    expect(answerLines(await kdig(`www.${OTHER}`, 'A'))).toEqual([`www.${OTHER}. 120 IN A 198.51.100.7`]);
    expect(await kdig('www.not-served.example', 'A')).toMatch(/status: REFUSED/);
    const axfr = await request(`/dns-query?dns=${jsonQuery({ name: ZONE, type: 252, dnssecOk: false, checkingDisabled: false }).toString('base64url')}`);
    expect(axfr.status).toBe(200);
    expect(axfr.body[3]! & 0xf).toBe(5);
  });

  it('sends application/dns-message with a max-age of the smallest TTL', async () => {
    const q = jsonQuery({ name: `www.${OTHER}`, type: 1, dnssecOk: false, checkingDisabled: false });
    const r = await request('/dns-query', { method: 'POST', headers: { 'content-type': 'application/dns-message' }, body: q });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/dns-message');
    expect(r.headers.get('cache-control')).toBe('max-age=120');
  });
});

describe('DNS-over-HTTPS, JSON form', () => {
  it('answers in the resolver JSON API shape, data as dig shows it', async () => {
    const a = await json(`www.${ZONE}`, 'A');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/dns-json/);
    expect(a.json).toEqual({ Status: 0, TC: false, RD: true, RA: false, AD: false, CD: false, Question: [{ name: `www.${ZONE}`, type: 1 }], Answer: [{ name: `www.${ZONE}`, type: 1, TTL: 300, data: '192.0.2.10' }] });
    for (const [name, type] of [[ZONE, 'MX'], [`txt.${ZONE}`, 'TXT'], [ZONE, 'CAA'], [`_sip._tcp.${ZONE}`, 'SRV'], [`www.${ZONE}`, 'AAAA'], [`alias.${ZONE}`, 'CNAME']] as const) {
      const udp = await dig(server.dnsPort!, name, type);
      const got = (await json(name, type)).json.Answer.map((r: { data: string }) => r.data);
      expect(got, `${name} ${type}`).toEqual(udp.answer.map((l) => l.split(' ').slice(4).join(' ')));
    }
  });

  it('NXDOMAIN with the SOA in Authority, DO=1 adds signatures, REFUSED for no zone, 400 for a bad question', async () => {
    const nx = await json(`nope.${OTHER}`, 'A');
    expect(nx.json.Status).toBe(3);
    expect(nx.json.Authority[0]).toMatchObject({ name: OTHER, type: 6 });
    const signed = await json(`www.${ZONE}`, 'A', '&do=1');
    expect(signed.json.Answer.map((r: { type: number }) => r.type)).toEqual([1, 46]);
    expect((await json('www.not-served.example', 'A')).json.Status).toBe(5);
    const bad = await json(`www.${ZONE}`, 'NOTATYPE');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/Invalid DNS type/);
    expect((await json('', 'A')).status).toBe(400);
  });
});

describe('DNS-over-HTTPS errors (RFC 8484 §4)', () => {
  it('400 for bad base64url or a message that is no query, 405, 413, 415', async () => {
    expect((await request('/dns-query?dns=not*base64')).status).toBe(400);
    expect((await request(`/dns-query?dns=${Buffer.from('hello, world').toString('base64url')}`)).status).toBe(400);
    const response = jsonQuery({ name: ZONE, type: 1, dnssecOk: false, checkingDisabled: false });
    response[2] |= 0x80;
    expect((await request(`/dns-query?dns=${response.toString('base64url')}`)).status).toBe(400);
    expect((await request('/dns-query')).status).toBe(400);
    const put = await request('/dns-query', { method: 'PUT', body: Buffer.from('x') });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    const big = await request('/dns-query', { method: 'POST', headers: { 'content-type': 'application/dns-message' }, body: Buffer.alloc(70_000) });
    expect(big.status).toBe(413);
    const text = await request('/dns-query', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: Buffer.from('x') });
    expect(text.status).toBe(415);
  });

  it('counts against the v4 request rate per client address when it is on', async () => {
    const limited = await startTestServer({ flags: { 'rate-limit': '3' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await request('/dns-query?name=x.example&type=A', { to: limited })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await request('/dns-query?name=x.example&type=A', { to: limited });
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.stop();
    }
  });
});
