/**
 * 100,000 malformed packets (random bytes and mutations of valid queries) over UDP, and a few thousand over
 * TCP: the server answers or drops each, logs no internal error, and still answers correctly afterwards.
 */
import dgram from 'node:dgram';
import { Writable } from 'node:stream';
import dnsPacket from 'dns-packet';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { tcpConnect } from './client.js';
import { dig } from './dig.js';
import { seededRandom } from '../helpers/seeded-random.js';

const ZONE = 'fuzz.example';
const TOTAL_UDP = 100_000;
const TOTAL_TCP = 5_000;

let server: TestServer;
const errors: string[] = [];


function seeds(): Buffer[] {
  const names = [ZONE, `www.${ZONE}`, `x.wild.${ZONE}`, `nx.${ZONE}`, 'other.test'];
  const types = ['A', 'AAAA', 'TXT', 'MX', 'SOA', 'NS', 'HTTPS', 'ANY', 'CNAME', 'SRV'] as dnsPacket.RecordType[];
  const out: Buffer[] = [];
  for (const name of names) for (const type of types) {
    out.push(dnsPacket.encode({ type: 'query', id: 1, questions: [{ type, name }] }));
    out.push(dnsPacket.encode({ type: 'query', id: 2, questions: [{ type, name }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096 } as dnsPacket.Answer] }));
  }
  return out;
}

function mutate(base: Buffer, rand: () => number): Buffer {
  const b = Buffer.from(base);
  const kind = Math.floor(rand() * 6);
  if (kind === 0) return b.subarray(0, Math.floor(rand() * b.length));
  if (kind === 1) { for (let i = 0; i < 1 + rand() * 4; i++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256); return b; }
  if (kind === 2) { b.writeUInt16BE(Math.floor(rand() * 65536), 4 + 2 * Math.floor(rand() * 4)); return b; }
  if (kind === 3) { const at = 12 + Math.floor(rand() * (b.length - 12)); b[at] = 0xc0 | Math.floor(rand() * 64); return b; }
  if (kind === 4) return Buffer.concat([b, Buffer.from(Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * 256)))]);
  b[2] = Math.floor(rand() * 256) & 0x7f; b[3] = Math.floor(rand() * 256);
  return b;
}

function packet(i: number, rand: () => number, base: Buffer[]): Buffer {
  if (i % 2 === 0) return Buffer.from(Array.from({ length: Math.floor(rand() * 300) }, () => Math.floor(rand() * 256)));
  return mutate(base[Math.floor(rand() * base.length)]!, rand);
}

beforeAll(async () => {
  const sink = new Writable({ write(chunk, _enc, cb) { errors.push(String(chunk)); cb(); } });
  server = await startTestServer({ logger: pino({ level: 'error' }, sink) });
  const zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.1' } as never);
  await sdk.dns.records.create({ zone_id: zoneId, type: 'TXT', name: '*.wild', content: 'wild' } as never);
  await sdk.dns.records.create({ zone_id: zoneId, type: 'HTTPS', name: 'www', data: { priority: 1, target: '.', value: 'alpn="h2"' } } as never);
});
afterAll(async () => { await server?.stop(); });

describe('fuzzing the DNS listeners', () => {
  it(`survives ${TOTAL_UDP} malformed UDP packets and ${TOTAL_TCP} over TCP`, async () => {
    const port = server.dnsPort!;
    const rand = seededRandom(20261123);
    const base = seeds();
    const socket = dgram.createSocket('udp4');
    let replies = 0;
    socket.on('message', () => { replies++; });
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    for (let i = 0; i < TOTAL_UDP; i++) {
      const p = packet(i, rand, base);
      await new Promise<void>((r) => socket.send(p, port, '127.0.0.1', () => r()));
      if (i % 200 === 199) await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 500));
    socket.close();
    expect(replies).toBeGreaterThan(TOTAL_UDP / 10);

    for (let c = 0; c < 5; c++) {
      const conn = await tcpConnect(port);
      for (let i = 0; i < TOTAL_TCP / 5; i++) conn.send(packet(i, rand, base));
      await conn.waitFor(TOTAL_TCP / 20, 3000);
      // a frame header promising more than arrives, then hang up
      conn.socket.write(Buffer.from([0xff, 0xff, 1, 2, 3]));
      conn.socket.destroy();
    }

    const after = await dig(port, `www.${ZONE}`, 'A');
    expect(after.answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.1`]);
    expect((await dig(port, `www.${ZONE}`, 'A', { tcp: true })).answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.1`]);
    expect(errors).toEqual([]);
  }, 180_000);
});
