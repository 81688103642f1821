/**
 * Protocol behaviour of the listeners on a real Stratus: rcodes for malformed and unsupported messages,
 * EDNS(0), dropping responses, TCP pipelining and idle timeout, the transfer allow-list.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { startDnsServer, type RunningDnsServer } from '../../src/dns-server/server.js';
import { ZoneChangeFeed } from '../../src/zones/change-feed.js';
import { silentLogger } from '../../src/shared/logger.js';
import { tcpConnect, udpExchange } from './client.js';
import { dig } from './dig.js';

const ZONE = 'protocol.example';
const decodeAny = (b: Buffer) => dnsPacket.decode(b) as unknown as { rcode: string };
let server: TestServer;
let port: number;

const query = (id: number, name: string, type: dnsPacket.RecordType, extra: Partial<dnsPacket.Packet> = {}) =>
  dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type, name }], ...extra });

beforeAll(async () => {
  server = await startTestServer({ config: { transferAllow: ['192.0.2.99'] } });
  port = server.dnsPort!;
  const zoneId = await createZone(server, ZONE);
  await server.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.80' } as never);
});
afterAll(async () => { await server?.stop(); });

describe('DNS protocol', () => {
  it('answers with AA, echoes id, question case and EDNS', async () => {
    const reply = dnsPacket.decode((await udpExchange(port, query(77, 'WWW.Protocol.Example', 'A', {
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096 } as dnsPacket.Answer],
    })))!);
    expect(reply.id).toBe(77);
    expect(reply.flags! & dnsPacket.AUTHORITATIVE_ANSWER).toBeTruthy();
    expect(reply.questions![0]!.name).toBe('WWW.Protocol.Example');
    expect((reply.answers![0] as { data: string }).data).toBe('192.0.2.80');
    expect(reply.additionals!.find((a) => a.type === 'OPT')).toMatchObject({ udpPayloadSize: 1232 });
  });

  it('FORMERR for two questions and for a broken question, NOTIMP for UPDATE, BADVERS for EDNS 1', async () => {
    const two = dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name: 'a.protocol.example' }, { type: 'A', name: 'b.protocol.example' }] });
    expect((decodeAny((await udpExchange(port, two))!) as { rcode: string }).rcode).toBe('FORMERR');
    const broken = query(2, 'www.protocol.example', 'A').subarray(0, 20);
    const r2 = (await udpExchange(port, broken))!;
    expect([r2.readUInt16BE(0), r2[3]! & 0xf, r2[2]! & 0x80]).toEqual([2, 1, 0x80]);
    const update = Buffer.from(query(3, ZONE, 'SOA'));
    update[2] = 5 << 3;
    expect((decodeAny((await udpExchange(port, update))!) as { rcode: string }).rcode).toBe('NOTIMP');
    const v1 = Buffer.from(query(4, ZONE, 'SOA', { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as dnsPacket.Answer] }));
    v1[v1.length - 5] = 1; // EDNS version byte of the OPT TTL
    const r4 = (await udpExchange(port, v1))!;
    const p4 = dnsPacket.decode(r4);
    expect(((p4.additionals!.find((a) => a.type === 'OPT') as unknown as { extendedRcode: number }).extendedRcode << 4) | (r4[3]! & 0xf)).toBe(16);
  });

  it('drops responses and runts, refuses other classes and names outside the zones', async () => {
    const response = Buffer.from(query(5, ZONE, 'SOA'));
    response[2] |= 0x80;
    expect(await udpExchange(port, response, 300)).toBeUndefined();
    expect(await udpExchange(port, Buffer.from([1, 2, 3]), 300)).toBeUndefined();
    const chaos = dnsPacket.encode({ type: 'query', id: 6, questions: [{ type: 'TXT', name: 'version.bind', class: 'CH' }] });
    expect((decodeAny((await udpExchange(port, chaos))!) as { rcode: string }).rcode).toBe('REFUSED');
    expect((await dig(port, 'elsewhere.test', 'A')).status).toBe('REFUSED');
  });

  it('answers pipelined TCP queries on one connection', async () => {
    const c = await tcpConnect(port);
    c.send(query(11, `www.${ZONE}`, 'A'), query(12, ZONE, 'SOA'), query(13, `nx.${ZONE}`, 'A'));
    const replies = await c.waitFor(3);
    expect(replies.map((r) => dnsPacket.decode(r).id).sort()).toEqual([11, 12, 13]);
    c.socket.destroy();
  });

  it('refuses AXFR to hosts outside the allow-list and AXFR over UDP', async () => {
    expect((await dig(port, ZONE, 'AXFR', { tcp: true })).raw).toMatch(/Transfer failed|REFUSED/);
    expect((decodeAny((await udpExchange(port, query(8, ZONE, 'AXFR')))!) as { rcode: string }).rcode).toBe('FORMERR');
  });
});

describe('TCP idle timeout', () => {
  let dir: string;
  let db: OpenDatabase;
  let dns: RunningDnsServer;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dns-idle-'));
    db = await openDatabase({ dataDir: dir });
    dns = await startDnsServer({
      db: db.db, changeFeed: new ZoneChangeFeed(), logger: silentLogger(), listen: { host: '127.0.0.1', port: 0 },
      edgeIpv4: [], edgeIpv6: [], transferAllow: [], notify: [], tcpIdleMs: 300,
    });
  });
  afterAll(async () => {
    await dns?.close();
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('closes idle connections', async () => {
    const c = await tcpConnect(dns.port);
    const started = Date.now();
    await c.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});
