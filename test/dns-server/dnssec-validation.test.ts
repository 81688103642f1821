/**
 * Signed answers validated by a real validating resolver (unbound, Debian), its trust anchor being the DS
 * line the API gives: positive answers, wildcards, CNAME chains, NODATA and NXDOMAIN (compact, RFC 9824) in
 * NSEC and NSEC3 modes set AD, as do proxied records, flattened CNAMEs and generated HTTPS records; a
 * tampered answer fails (SERVFAIL).
 */
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { dig } from './dig.js';
import { startUnbound, type Unbound } from './unbound.js';

const ZONE = 'signed.example';

let server: TestServer;
let zoneId: string;
let ds: string;

/** Answer lines without their TTL (the resolver's cache counts them down). */
const noTtl = (lines: string[]) => lines.map((l) => l.split(' ').filter((_, i) => i !== 1).join(' '));

/** Queries the resolver with DO and RD. */
const resolve = (u: Unbound, name: string, type: string) => dig(u.port, name, type, { extra: ['+rec', '+dnssec', '+time=5', '+tries=1'] });

beforeAll(async () => {
  server = await startTestServer({ flags: { 'edge-ipv4': '192.0.2.80' } });
  zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  const records: Array<Record<string, unknown>> = [
    { type: 'A', name: `www.${ZONE}`, content: '192.0.2.1' },
    { type: 'AAAA', name: `www.${ZONE}`, content: '2001:db8::1' },
    { type: 'TXT', name: ZONE, content: '"v=spf1 -all"' },
    { type: 'MX', name: ZONE, content: `mail.${ZONE}`, priority: 10 },
    { type: 'A', name: `mail.${ZONE}`, content: '192.0.2.2' },
    { type: 'A', name: `*.wild.${ZONE}`, content: '192.0.2.3' },
    { type: 'CNAME', name: `c1.${ZONE}`, content: `c2.${ZONE}` },
    { type: 'CNAME', name: `c2.${ZONE}`, content: `www.${ZONE}` },
    { type: 'A', name: `deep.ent.${ZONE}`, content: '192.0.2.4' },
    { type: 'A', name: `tamper.${ZONE}`, content: '192.0.2.5' },
    { type: 'A', name: `proxied.${ZONE}`, content: '198.51.100.7', proxied: true },
    { type: 'SRV', name: `_sip._tcp.${ZONE}`, data: { priority: 10, weight: 5, port: 5060, target: `Sip.${ZONE}` } },
    { type: 'CNAME', name: `flat.${ZONE}`, content: `c1.${ZONE}`, settings: { flatten_cname: true } },
  ];
  for (const r of records) await sdk.dns.records.create({ zone_id: zoneId, ttl: 300, ...r } as never);
  await api(server, 'PATCH', `/zones/${zoneId}/settings/http3`, { value: 'on' }); // generated HTTPS records for proxied names
  ds = (await sdk.dns.dnssec.edit({ zone_id: zoneId, status: 'active' })).ds!;
});
afterAll(async () => { await server?.stop(); });

async function expectValidated(u: Unbound, name: string, type: string, status = 'NOERROR') {
  const r = await resolve(u, name, type);
  if (r.status !== status || !r.flags.includes('ad')) throw new Error(`${name} ${type}: ${r.status} flags ${r.flags.join(' ')}\n${r.raw}\n${u.log().slice(-3000)}`);
  return r;
}

describe.each([
  { mode: 'NSEC', nsec3: false },
  { mode: 'NSEC3', nsec3: true },
])('validation by unbound ($mode)', ({ nsec3 }) => {
  let unbound: Unbound;
  beforeAll(async () => {
    await server.sdk().dns.dnssec.edit({ zone_id: zoneId, dnssec_use_nsec3: nsec3 });
    unbound = await startUnbound(server.dnsPort!, [ZONE], [ds]);
  });
  afterAll(async () => { await unbound?.stop(); });

  it('positive answers, the apex, proxied and SRV set AD', async () => {
    expect(noTtl((await expectValidated(unbound, `www.${ZONE}`, 'A')).answer)).toContain(`www.${ZONE}. IN A 192.0.2.1`);
    await expectValidated(unbound, `www.${ZONE}`, 'AAAA');
    await expectValidated(unbound, ZONE, 'TXT');
    await expectValidated(unbound, ZONE, 'MX');
    await expectValidated(unbound, ZONE, 'DNSKEY');
    await expectValidated(unbound, `proxied.${ZONE}`, 'A');
    expect((await expectValidated(unbound, `proxied.${ZONE}`, 'HTTPS')).answer.some((l) => l.includes('HTTPS 1 . alpn="h3"'))).toBe(true);
    expect(noTtl((await expectValidated(unbound, `flat.${ZONE}`, 'A')).answer)).toContain(`flat.${ZONE}. IN A 192.0.2.1`);
    await expectValidated(unbound, `_sip._tcp.${ZONE}`, 'SRV');
  });

  it('wildcard answers and CNAME chains set AD', async () => {
    const w = await expectValidated(unbound, `anything.wild.${ZONE}`, 'A');
    expect(noTtl(w.answer)).toContain(`anything.wild.${ZONE}. IN A 192.0.2.3`);
    await expectValidated(unbound, `a.b.wild.${ZONE}`, 'A');
    const c = await expectValidated(unbound, `c1.${ZONE}`, 'A');
    expect(noTtl(c.answer.filter((l) => !l.includes('RRSIG')))).toEqual([`c1.${ZONE}. IN CNAME c2.${ZONE}.`, `c2.${ZONE}. IN CNAME www.${ZONE}.`, `www.${ZONE}. IN A 192.0.2.1`]);
  });

  it('NODATA, empty non-terminals, wildcard NODATA and NXDOMAIN set AD', async () => {
    expect((await expectValidated(unbound, `www.${ZONE}`, 'TXT')).answer).toEqual([]);
    await expectValidated(unbound, `ent.${ZONE}`, 'A');
    await expectValidated(unbound, `x.wild.${ZONE}`, 'TXT');
    await expectValidated(unbound, `nope.${ZONE}`, 'A', 'NOERROR');
    await expectValidated(unbound, `c1.${ZONE}`, 'TXT');
  });
});

describe('tampering', () => {
  let proxy: dgram.Socket;
  let unbound: Unbound;
  beforeAll(async () => {
    // A UDP proxy that flips one byte of the last signature in answers about tamper.signed.example.
    proxy = dgram.createSocket('udp4');
    const upstream = dgram.createSocket('udp4');
    const clients = new Map<number, { port: number; address: string }>();
    upstream.on('message', (msg) => {
      const id = msg.readUInt16BE(0);
      const client = clients.get(id);
      if (!client) return;
      if (msg.includes(Buffer.from('tamper'))) msg[msg.length - 20] = msg[msg.length - 20]! ^ 0x01;
      proxy.send(msg, client.port, client.address);
    });
    proxy.on('message', (msg, rinfo) => {
      clients.set(msg.readUInt16BE(0), { port: rinfo.port, address: rinfo.address });
      upstream.send(msg, server.dnsPort!, '127.0.0.1');
    });
    proxy.on('close', () => upstream.close());
    await new Promise<void>((resolve) => proxy.bind(0, '127.0.0.1', () => resolve()));
    await server.sdk().dns.dnssec.edit({ zone_id: zoneId, dnssec_use_nsec3: false });
    unbound = await startUnbound(proxy.address().port, [ZONE], [ds]);
  });
  afterAll(async () => {
    await unbound?.stop();
    proxy?.close();
  });

  it('a flipped signature byte makes the answer bogus (SERVFAIL); untouched answers validate', async () => {
    await expectValidated(unbound, `www.${ZONE}`, 'A');
    const r = await resolve(unbound, `tamper.${ZONE}`, 'A');
    expect(r.status).toBe('SERVFAIL');
  });
});
