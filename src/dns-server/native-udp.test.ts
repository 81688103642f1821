/**
 * The native UDP socket on its own (no server): which queries it answers itself and which it hands to
 * JavaScript. Installed answers are served with the query's id and name case; nothing is served while the
 * main thread's shared counter is ahead of what the thread applied or a zone has work queued; a zone's
 * invalidation drops its answers only, a full one every answer; expired answers and uncacheable queries go to
 * JavaScript. Skipped when the addon is not built (`npm run build:native`).
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNativeUdp, NativeUdp, type NativeMiss } from './native-udp.js';
import { QTYPES, RCODES } from './query-stats.js';

const { addon } = loadNativeUdp();
const shared = new Int32Array(new SharedArrayBuffer(8));
let socket: NativeUdp;
let client: dgram.Socket;
const misses: NativeMiss[] = [];
const replies: Buffer[] = [];

const query = (name: string, id: number, type: dnsPacket.RecordType = 'A') => dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }] });
const answerFor = (q: Buffer, data: string) => dnsPacket.encode({
  type: 'response', id: q.readUInt16BE(0), flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED,
  questions: dnsPacket.decode(q).questions, answers: [{ type: 'A', name: dnsPacket.decode(q).questions![0]!.name, ttl: 60, data }],
});

/** Sends one query and waits for its reply (answered natively, or by the `onMisses` below). */
async function exchange(q: Buffer): Promise<{ reply: dnsPacket.Packet; native: boolean }> {
  const missesBefore = misses.length;
  const repliesBefore = replies.length;
  client.send(q, socket.address().port, '127.0.0.1');
  const end = Date.now() + 5000;
  while (replies.length === repliesBefore && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  if (replies.length === repliesBefore) throw new Error('no reply');
  return { reply: dnsPacket.decode(replies.at(-1)!), native: misses.length === missesBefore };
}

beforeAll(async () => {
  if (!addon) return;
  socket = new NativeUdp(addon, '127.0.0.1', 0, shared, {
    // JavaScript's answer to a miss: 192.0.2.99, never cached.
    onMisses: (list) => { for (const m of list) { misses.push(m); socket.send(m.sockaddr, answerFor(m.msg, '192.0.2.99')); } },
    onLogged: () => {},
  });
  client = dgram.createSocket('udp4');
  client.on('message', (m) => replies.push(m));
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
});

afterAll(() => {
  socket?.close();
  client?.close();
});

describe.skipIf(!addon)('native UDP socket', () => {
  it('answers installed answers itself, with the query id and letter case', async () => {
    const q = query('www.a.example', 1);
    expect((await exchange(q)).native).toBe(false);
    socket.install(q, answerFor(q, '192.0.2.1'), 'zone-a', Infinity);
    const hit = await exchange(query('WWW.A.example', 4242));
    expect(hit.native).toBe(true);
    expect(hit.reply.id).toBe(4242);
    expect(hit.reply.questions![0]!.name).toBe('WWW.A.example');
    expect((hit.reply.answers![0] as { data: string }).data).toBe('192.0.2.1');
    const counted = socket.counts.queries[QTYPES.indexOf('A') * RCODES.length + RCODES.indexOf('NOERROR')];
    expect(counted).toBeGreaterThanOrEqual(1);
  });

  it('serves nothing while the main thread has posted updates the thread has not applied, or a zone waits', async () => {
    const q = query('www.a.example', 2);
    expect((await exchange(q)).native).toBe(true);
    Atomics.store(shared, 0, 1); // an update posted, not yet applied
    expect((await exchange(q)).native).toBe(false);
    socket.applied(1, false);
    expect((await exchange(q)).native).toBe(true);
    Atomics.store(shared, 1, 1); // updates waiting to be posted
    expect((await exchange(q)).native).toBe(false);
    Atomics.store(shared, 1, 0);
    socket.applied(1, true); // a zone has work queued
    expect((await exchange(q)).native).toBe(false);
    socket.applied(1, false);
    expect((await exchange(q)).native).toBe(true);
  });

  it('drops one zone on its invalidation, every zone on a full one', async () => {
    const a = query('www.a.example', 3);
    const b = query('www.b.example', 4);
    socket.install(b, answerFor(b, '192.0.2.2'), 'zone-b', Infinity);
    expect((await exchange(b)).native).toBe(true);
    socket.invalidate('zone-a');
    expect((await exchange(a)).native).toBe(false);
    expect((await exchange(b)).native).toBe(true);
    socket.install(a, answerFor(a, '192.0.2.3'), 'zone-a', Infinity);
    expect((await exchange(a)).reply.answers![0]).toMatchObject({ data: '192.0.2.3' });
    socket.invalidate(undefined);
    expect((await exchange(a)).native).toBe(false);
    expect((await exchange(b)).native).toBe(false);
  });

  it('hands over expired answers, other questions and queries it does not key', async () => {
    const q = query('old.a.example', 5);
    socket.install(q, answerFor(q, '192.0.2.4'), 'zone-a', Date.now() - 1);
    expect((await exchange(q)).native).toBe(false);
    const fresh = query('new.a.example', 6);
    socket.install(fresh, answerFor(fresh, '192.0.2.5'), 'zone-a', Date.now() + 60_000);
    expect((await exchange(fresh)).native).toBe(true);
    expect((await exchange(query('new.a.example', 7, 'AAAA'))).native).toBe(false); // another type: another key
    const noRd = Buffer.from(fresh);
    noRd[2] = 0; // RD is part of the key
    expect((await exchange(noRd)).native).toBe(false);
    const twoQuestions = dnsPacket.encode({ type: 'query', id: 8, questions: [{ type: 'A', name: 'new.a.example' }, { type: 'A', name: 'x.a.example' }] });
    expect((await exchange(twoQuestions)).native).toBe(false);
  });
});
