/**
 * Every record value the API accepts encodes on the wire as the DNS server serves it, and values the
 * server could not encode are refused at the API. Cases: one sample per type (`record-samples.ts`) and
 * generated edge cases at each DNS limit (character-strings of 255 bytes, labels of 63 and names of 255
 * octets, SVCB parameters, CAA tags and values, TXT lengths, RDATA that fits one message) and one past it.
 * Accepted values are written into a whole DNS response and read back with dns-packet (an independent
 * decoder); a server then answers a few of the largest over TCP with `dig`, and refuses the ones past the limit
 * with the envelope's 400.
 */
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSamples } from './record-samples.js';
import { check } from '../../src/dns/record-types/test-support.js';
import { recordRdata } from '../../src/dns/rdata/index.js';
import { encodeMessage } from '../../src/dns/wire/message.js';
import { Writer } from '../../src/dns/wire/writer.js';
import { TYPE } from '../../src/dns/wire/constants.js';
import { MAX_RDATA_BYTES } from '../../src/dns/record-types/wire-check.js';
import type { RecordType } from '../../src/dns/record.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { dig } from '../dns-server/dig.js';

interface Case { label: string; type: RecordType; body: { content?: unknown; data?: unknown; priority?: unknown }; ok: boolean }

const label = (n: number, ch = 'a') => ch.repeat(n);
/** A host name of exactly `n` characters (labels of 63), ending in `.example.net`. */
function nameOf(n: number): string {
  const tail = '.example.net';
  const labels: string[] = [];
  let left = n - tail.length;
  while (left > 0) {
    const take = Math.min(63, left === 64 ? 62 : left);
    labels.push(label(take, 'h'));
    left -= take + 1;
  }
  const name = `${labels.join('.')}${tail}`;
  return name.length === n ? name : `${name.slice(0, n - tail.length)}${tail}`;
}
const b64 = (n: number) => Buffer.alloc(n, 7).toString('base64');
const hex = (n: number) => Buffer.alloc(n, 0xab).toString('hex');
const naptr = (over: Record<string, unknown>) => ({ data: { order: 1, preference: 1, flags: 'S', service: 'SIP+D2U', regex: '', replacement: '.', ...over } });

/** Cases at each limit (ok) and one past it (refused). */
function edgeCases(): Case[] {
  const c = (lbl: string, type: RecordType, body: Case['body'], ok: boolean): Case => ({ label: lbl, type, body, ok });
  const cases: Case[] = [];
  for (const [n, ok] of [[255, true], [256, false], [300, false]] as const) {
    cases.push(c(`NAPTR flags ${n}`, 'NAPTR', naptr({ flags: label(n, 'S') }), ok));
    cases.push(c(`NAPTR service ${n}`, 'NAPTR', naptr({ service: label(n, 's') }), ok));
    cases.push(c(`NAPTR regex ${n}`, 'NAPTR', naptr({ regex: label(n, 'r') }), ok));
  }
  // Bytes, not characters: 127 two-byte characters and one more byte fill a character-string; 128 overflow it.
  cases.push(c('NAPTR service 255 bytes of UTF-8', 'NAPTR', naptr({ service: `${'é'.repeat(127)}x` }), true));
  cases.push(c('NAPTR service 256 bytes of UTF-8', 'NAPTR', naptr({ service: 'é'.repeat(128) }), false));
  for (const [n, ok] of [[253, true], [254, false]] as const) {
    const host = nameOf(n);
    cases.push(c(`CNAME target ${n}`, 'CNAME', { content: host }, ok));
    cases.push(c(`MX target ${n}`, 'MX', { content: host, priority: 1 }, ok));
    cases.push(c(`NS target ${n}`, 'NS', { content: host }, ok));
    cases.push(c(`PTR target ${n}`, 'PTR', { content: host }, ok));
    cases.push(c(`SRV target ${n}`, 'SRV', { data: { priority: 1, weight: 1, port: 1, target: host } }, ok));
    cases.push(c(`SVCB target ${n}`, 'SVCB', { data: { priority: 1, target: host, value: 'alpn="h2"' } }, ok));
    cases.push(c(`NAPTR replacement ${n}`, 'NAPTR', naptr({ replacement: host }), ok));
  }
  for (const [n, ok] of [[63, true], [64, false]] as const) {
    cases.push(c(`CNAME label ${n}`, 'CNAME', { content: `${label(n)}.example.net` }, ok));
    cases.push(c(`HTTPS target label ${n}`, 'HTTPS', { data: { priority: 1, target: `${label(n)}.example.net`, value: '' } }, ok));
  }
  for (const [n, ok] of [[15, true], [16, false]] as const) cases.push(c(`CAA tag ${n}`, 'CAA', { data: { flags: 0, tag: label(n, 't'), value: 'x' } }, ok));
  for (const [n, ok] of [[255, true], [256, false]] as const) cases.push(c(`SVCB alpn id ${n}`, 'SVCB', { data: { priority: 1, target: '.', value: `alpn=${label(n, 'p')}` } }, ok));
  // RDATA that fills one message: the last byte that fits, and one more.
  const caaFixed = 1 + 1 + 'issue'.length;
  for (const [extra, ok] of [[0, true], [1, false]] as const) {
    cases.push(c(`CAA value filling RDATA +${extra}`, 'CAA', { data: { flags: 0, tag: 'issue', value: label(MAX_RDATA_BYTES - caaFixed + extra, 'v') } }, ok));
    cases.push(c(`URI target filling RDATA +${extra}`, 'URI', { priority: 1, data: { weight: 1, target: `https://example.com/${label(MAX_RDATA_BYTES - 4 - 20 + extra, 'u')}` } }, ok));
    cases.push(c(`OPENPGPKEY filling RDATA +${extra}`, 'OPENPGPKEY', { content: b64(MAX_RDATA_BYTES + extra) }, ok));
    cases.push(c(`DNSKEY filling RDATA +${extra}`, 'DNSKEY', { data: { flags: 257, protocol: 3, algorithm: 13, public_key: b64(MAX_RDATA_BYTES - 4 + extra) } }, ok));
    cases.push(c(`CERT filling RDATA +${extra}`, 'CERT', { data: { type: 1, key_tag: 1, algorithm: 8, certificate: b64(MAX_RDATA_BYTES - 5 + extra) } }, ok));
    cases.push(c(`TLSA filling RDATA +${extra}`, 'TLSA', { data: { usage: 3, selector: 1, matching_type: 0, certificate: hex(MAX_RDATA_BYTES - 3 + extra) } }, ok));
  }
  // TXT: 2,048 characters at most; strings of 255 bytes and longer ones (split on the wire).
  cases.push(c('TXT 2048 characters', 'TXT', { content: label(2048, 't') }, true));
  cases.push(c('TXT 2049 characters', 'TXT', { content: label(2049, 't') }, false));
  cases.push(c('TXT one 255-byte string', 'TXT', { content: `"${label(255, 't')}"` }, true));
  cases.push(c('TXT one 256-byte string (split)', 'TXT', { content: `"${label(256, 't')}"` }, true));
  cases.push(c('TXT multibyte near the split', 'TXT', { content: `"${'€'.repeat(200)}"` }, true));
  return cases;
}

/** True when dns-packet read the answer as `type` (or, for types it does not know, as that type code). */
const sameType = (answer: { type: string }, type: string) => answer.type === type || answer.type === `UNKNOWN_${TYPE[type as keyof typeof TYPE]}`;

/** Writes the value as an answer of a whole response and reads it back with dns-packet. */
function roundTrip(type: RecordType, value: { content: string; data: Record<string, unknown> | null; priority: number | null }): dnsPacket.Answer {
  const w = new Writer();
  const name = 'rec.example.com';
  encodeMessage(w, {
    id: 1, qr: true, opcode: 0, aa: true, tc: false, rd: false, cd: false, rcode: 0,
    question: { name, type: TYPE[type as keyof typeof TYPE], klass: 1 },
    answers: [{ name, type: TYPE[type as keyof typeof TYPE], ttl: 300, rdata: recordRdata({ type, ...value }) }],
    authorities: [], additionals: [], edns: undefined,
  } as never);
  const decoded = dnsPacket.decode(w.result());
  expect(decoded.answers).toHaveLength(1);
  return decoded.answers![0]!;
}

describe('record data and the wire encoder', () => {
  it('every sample type is accepted and encodes', () => {
    for (const s of recordSamples('example.com')) {
      const out = check(s.type as RecordType, s.body, { recordName: s.name });
      expect(out.messages, s.type).toEqual([]);
      const answer = roundTrip(s.type as RecordType, out.value!);
      expect(sameType(answer, s.type), `${s.type} read as ${answer.type}`).toBe(true);
    }
  });

  it('at each limit the value is accepted and encodes; one past it the API refuses it', () => {
    for (const k of edgeCases()) {
      const out = check(k.type, k.body, k.type === 'SRV' ? { recordName: '_sip._tcp.example.com' } : {});
      if (!k.ok) {
        expect(out.value, k.label).toBeUndefined();
        expect(out.codes.length, k.label).toBeGreaterThan(0);
        continue;
      }
      expect(out.messages, k.label).toEqual([]);
      const answer = roundTrip(k.type, out.value!) as { type: string; data: unknown };
      expect(sameType(answer, k.type), `${k.label} read as ${answer.type}`).toBe(true);
      if (k.type === 'NAPTR') {
        const d = answer.data as { flags: string; services: string; regexp: string };
        const sent = (k.body.data as Record<string, string>);
        expect([d.flags, d.services, d.regexp], k.label).toEqual([sent.flags!.toUpperCase(), sent.service, sent.regex]);
      }
    }
  });
});

describe('over the API and the DNS server', () => {
  let server: TestServer;
  let zoneId: string;
  beforeAll(async () => {
    server = await startTestServer();
    zoneId = await createZone(server, 'wire-limits.example');
  });
  afterAll(async () => { await server.stop(); });

  it('NAPTR flags of 300 bytes is a 400 in the envelope; 255 bytes is stored and answered', async () => {
    const bad = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'NAPTR', name: 'n300', ...naptr({ flags: label(300, 'S') }) });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({ code: 9512, message: 'Content for NAPTR record is invalid: data.flags must be at most 255 bytes.' });
    const good = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'NAPTR', name: 'n255', ...naptr({ flags: label(255, 'S') }) });
    expect(good.status).toBe(200);
    const answer = await eventuallyAnswered(() => dig(server.dnsPort!, 'n255.wire-limits.example', 'NAPTR', { tcp: true }));
    expect(answer[0]).toContain(`"${label(255, 'S')}"`);
  });

  it('a CAA value filling one DNS message is served over TCP; one byte more is refused', async () => {
    const value = label(MAX_RDATA_BYTES - 7, 'v');
    const good = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'CAA', name: 'big', data: { flags: 0, tag: 'issue', value } });
    expect(good.status).toBe(200);
    const answer = await eventuallyAnswered(() => dig(server.dnsPort!, 'big.wire-limits.example', 'CAA', { tcp: true }));
    expect(answer[0]!.length).toBeGreaterThan(value.length);
    const bad = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'CAA', name: 'bigger', data: { flags: 0, tag: 'issue', value: `${value}v` } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]!.code).toBe(9514);
  });

  it('SVCB parameters with escapes are served as validated (read back by dig)', async () => {
    const value = 'alpn="h2\\\\,x,h3" key65000="a b\\"c" port=8443';
    const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'HTTPS', name: 'svc', data: { priority: 1, target: '.', value } });
    expect(res.status).toBe(200);
    const answer = await eventuallyAnswered(() => dig(server.dnsPort!, 'svc.wire-limits.example', 'HTTPS'));
    expect(answer).toEqual(['svc.wire-limits.example. 300 IN HTTPS 1 . alpn="h2\\\\,x,h3" port=8443 key65000="a b\\"c"']);
  });

  it('TXT records at one name: 8,192 characters together, then 400 9526; the name still answers over TCP', async () => {
    for (const ch of 'abcd') {
      const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'TXT', name: 'txt-total', content: ch.repeat(2048) });
      expect(res.status).toBe(200);
    }
    const over = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'TXT', name: 'txt-total', content: 'e' });
    expect(over.status).toBe(400);
    expect(over.body.errors[0]).toEqual({ code: 9526, message: 'Content for TXT records at txt-total.wire-limits.example is invalid: together they would be 8193 characters long; the limit is 8192.' });
    const answer = await eventuallyAnswered(async () => {
      const r = await dig(server.dnsPort!, 'txt-total.wire-limits.example', 'TXT', { tcp: true });
      return r.answer.length === 4 ? r : { answer: [] };
    });
    expect(answer).toHaveLength(4);
  });
});

/** The answer section once the record is served (the zone cache swaps snapshots shortly after a write). */
async function eventuallyAnswered(query: () => Promise<{ answer: string[] }>): Promise<string[]> {
  const end = Date.now() + 15_000;
  for (;;) {
    const res = await query();
    if (res.answer.length > 0 || Date.now() > end) return res.answer;
    await new Promise((r) => setTimeout(r, 100));
  }
}
