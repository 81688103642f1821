/**
 * `last_transferred_time` of a zone with outgoing settings is the end of a transfer that reached its end: a
 * client that leaves before the last message is taken by the connection has not been transferred the zone, and
 * the time stays as it was (it used to be set once the DNS thread had made the last part, which it makes up to
 * three parts ahead of the connection). A transfer read to its end sets it. Run against the compiled build, whose
 * DNS thread makes the parts (from source, the main thread answers).
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { projectBuild } from '../helpers/compiled-server.js';
import { accountId, createZone } from '../helpers/api.js';
import { tcpConnect } from './client.js';
import { encodeMessage } from '../../src/dns/wire/message.js';
import { Writer } from '../../src/dns/wire/writer.js';
import { TYPE } from '../../src/dns/wire/constants.js';
import { untilDefined } from '../helpers/until.js';

const ZONE = 'transfer-time.example';
const RECORDS = 3998;
const run = promisify(execFile);
let server: TestServer;
let zoneId: string;

/** Polls `fn` until it gives a value (test/helpers/until.ts). */
const until = <T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> =>
  untilDefined(what, fn, { ms, pollMs: 50 });

/** A query for the zone; an IXFR carries the client's SOA with `serial`. */
function query(type: number, serial?: number): Buffer {
  const w = new Writer(512);
  const nums = Buffer.alloc(20);
  nums.writeUInt32BE(serial ?? 0, 0);
  encodeMessage(w, {
    id: 77, qr: false, opcode: 0, aa: false, rd: false, rcode: 0, question: { name: ZONE, type, klass: 1 },
    answers: [], authorities: serial === undefined ? [] : [{ name: ZONE, type: TYPE.SOA, ttl: 0, rdata: [{ name: `ns.${ZONE}` }, { name: `host.${ZONE}` }, nums] }], additionals: [],
  });
  return w.result();
}

/** Every TCP reply to one query, until the server has sent `count` messages. */
async function exchange(msg: Buffer, count = 1): Promise<Buffer[]> {
  const c = await tcpConnect(server.dnsPort!);
  c.send(msg);
  const replies = await c.waitFor(count, 10_000);
  c.socket.destroy();
  return replies;
}

const rcodeOf = (m: Buffer) => m[3]! & 0xf;
const serialOf = (m: Buffer) => m.readUInt32BE(m.length - 20);

async function lastTransferred(): Promise<string | undefined> {
  return (await server.sdk().dns.zoneTransfers.outgoing.get({ zone_id: zoneId })).last_transferred_time;
}

beforeAll(async () => {
  // The instance's defaults allow no loopback transfer: answers to 127.0.0.1 are the zone's outgoing settings.
  // The compiled build (STRATUS_TEST_DIST, `npm run build` first), whose DNS thread makes a transfer's parts ahead.
  projectBuild();
  const dist = process.env.STRATUS_TEST_DIST;
  process.env.STRATUS_TEST_DIST = dist || '1';
  try {
    server = await startTestServer({ flags: { 'transfer-peer-allow': '127.0.0.0/8', 'transfer-allow': '192.0.2.1' } });
  } finally {
    if (dist === undefined) delete process.env.STRATUS_TEST_DIST;
    else process.env.STRATUS_TEST_DIST = dist;
  }
  const sdk = server.sdk();
  const account = await accountId(server);
  zoneId = await createZone(server, ZONE);
  // About 2 KB per record, in fewer names than the DNS thread makes in three parts (2,000 names at least each).
  const text = Array.from({ length: 8 }, (_, i) => `"${String(i).repeat(250)}"`).join(' ');
  for (let start = 0; start < RECORDS; start += 2000) {
    const posts = Array.from({ length: Math.min(2000, RECORDS - start) }, (_, i) => ({ type: 'TXT', name: `t${start + i}`, content: text }));
    await sdk.dns.records.batch({ zone_id: zoneId, posts } as never);
  }
  const peer = await sdk.dns.zoneTransfers.peers.create({ account_id: account, name: 'loopback' });
  await sdk.dns.zoneTransfers.peers.update(peer.id, { account_id: account, name: 'loopback', ip: '127.0.0.1', port: 53 });
  await sdk.dns.zoneTransfers.outgoing.create({ zone_id: zoneId, name: `${ZONE}.`, peers: [peer.id] });
  expect(await sdk.dns.zoneTransfers.outgoing.enable({ zone_id: zoneId })).toBe('Enabled');
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('last_transferred_time', () => {
  it('is left alone by a transfer whose client left before its end, and set by one read to its end', async () => {
    // The DNS server has the outgoing settings once an IXFR from the current serial is answered (the SOA alone:
    // no transfer) instead of refused.
    const serial = serialOf((await exchange(query(TYPE.SOA)))[0]!);
    await until('the outgoing settings in the DNS server', async () => (rcodeOf((await exchange(query(TYPE.IXFR, serial)))[0]!) === 0 ? true : undefined));

    // An AXFR of about 8 MB (more than the connection holds while its client reads nothing) whose client reads
    // its first bytes and leaves. The DNS thread makes the transfer's parts ahead of the connection, to its end;
    // the last ones are never taken.
    const gone = net.connect(server.dnsPort!, '127.0.0.1');
    await new Promise<void>((resolve, reject) => { gone.once('connect', resolve); gone.once('error', reject); });
    gone.on('error', () => {});
    const msg = query(TYPE.AXFR);
    const framed = Buffer.alloc(2 + msg.length);
    framed.writeUInt16BE(msg.length);
    msg.copy(framed, 2);
    gone.write(framed);
    await new Promise<void>((resolve) => gone.once('data', () => { gone.pause(); resolve(); }));
    // A query on another connection is answered after the parts asked for so far (the DNS thread answers in
    // order); then the client leaves, and another query is answered after whatever its leaving caused; then the
    // recorded time is read back (the database takes the write, when there is one, first).
    expect(rcodeOf((await exchange(query(TYPE.SOA)))[0]!)).toBe(0);
    gone.destroy();
    expect(rcodeOf((await exchange(query(TYPE.SOA)))[0]!)).toBe(0);
    expect(await lastTransferred()).toBeUndefined();

    // The same AXFR read to its end sets it.
    const { stdout } = await run('sh', ['-c', `kdig @127.0.0.1 -p ${server.dnsPort!} ${ZONE} AXFR | grep -c '\\sTXT\\s'`]);
    expect(Number(stdout.trim())).toBe(RECORDS);
    const at = await until('last_transferred_time', lastTransferred);
    expect(Date.parse(at)).toBeGreaterThan(Date.now() - 60_000);
  });
});
