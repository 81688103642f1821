import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { readServingSettings } from '../dns/snapshot-settings.js';
import type { SnapshotRecord } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { TYPE } from '../dns/wire/constants.js';
import { axfrStream } from './axfr.js';
import { ChunkPool, FramedChunks, framedRuns, transferList } from './framed-parts.js';

/** What the TCP listener wrote before framed parts: each message behind its length, copied into one buffer. */
function framedCopy(messages: readonly Uint8Array[]): Buffer {
  return Buffer.concat(messages.flatMap((m) => [Buffer.from([m.length >> 8, m.length & 0xff]), Buffer.from(m)]));
}

function bytes(n: number, seed: number): Buffer {
  return Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));
}

describe('framed transfer parts', () => {
  it('writes the bytes framing a copy would, in one slice per chunk', () => {
    const chunks = new FramedChunks();
    // Sizes that fill a 256 KiB chunk and spill into more (one message bigger than a chunk's default is not possible: 64 KiB at most).
    const messages = [12, 65_535, 300, 65_535, 65_535, 65_535, 40, 1].map((n, i) => chunks.push(bytes(n, i), n));
    messages.forEach((m, i) => expect(m.equals(bytes(m.length, i))).toBe(true));
    const runs = framedRuns(messages)!;
    expect(runs.length).toBe(2);
    expect(Buffer.concat(runs).equals(framedCopy(messages))).toBe(true);
    // Messages of two parts (a new chunk per part) and a subset still frame right.
    chunks.takeChunk();
    const next = [chunks.push(bytes(100, 9), 100), chunks.push(bytes(7, 10), 7)];
    expect(Buffer.concat(framedRuns([...messages, ...next])!).equals(framedCopy([...messages, ...next]))).toBe(true);
    expect(Buffer.concat(framedRuns([messages[0]!, messages[2]!])!).equals(framedCopy([messages[0]!, messages[2]!]))).toBe(true);
  });

  it('leaves messages not laid out framed to the copy, and never hands over memory it did not make', () => {
    const plain = [Buffer.from([1, 2, 3]), Buffer.from([4, 5])];
    expect(framedRuns(plain)).toBeUndefined();
    // The second message's two bytes before it are not its length (written here: a buffer from Node's shared pool
    // has whatever bytes were there before it, which could read as its length).
    expect(framedRuns([Buffer.from([0, 3, 9, 9, 9]).subarray(2), Buffer.from([0, 9, 1]).subarray(2)])).toBeUndefined();
    expect(transferList(plain)).toEqual([]);
    const chunks = new FramedChunks();
    const mine = [chunks.push(bytes(10, 1), 10), chunks.push(bytes(20, 2), 20)];
    const list = transferList([...mine, ...plain]);
    expect(list).toEqual([mine[0]!.buffer]);
  });

  it('shares a streamed AXFR part with another thread without a copy, and reuses a chunk only once given back', () => {
    const pool = new ChunkPool();
    const tree = zoneOf(3000);
    const q = { name: ORIGIN, type: TYPE.AXFR, klass: 1 };
    const { first, more } = axfrStream(tree, 7, q, 16_000, 0, pool);
    const parts = [first];
    for (let p = more!(); p; p = more!()) parts.push(p);
    expect(parts.length).toBeGreaterThan(2);
    // Every part in chunks of its own: no chunk holds messages of two parts.
    const chunksOf = parts.map((p) => new Set(p.map((m) => m.buffer)));
    const all = chunksOf.flatMap((c) => [...c]);
    expect(new Set(all).size).toBe(all.length);
    expect(pool.lentCount).toBe(all.length);
    const { port1, port2 } = new MessageChannel();
    for (const part of parts) {
      const expected = framedCopy(part);
      expect(transferList(part)).toEqual([]);
      port1.postMessage([...part]);
      const got = receiveMessageOnPort(port2)!.message as Uint8Array[];
      const arrived = got.map((m) => Buffer.from(m.buffer, m.byteOffset, m.byteLength));
      expect(Buffer.concat(framedRuns(arrived)!).equals(expected)).toBe(true);
      // The same memory, not a copy: a byte changed on one side is seen on the other.
      arrived[0]![0]! ^= 0xff;
      expect(part[0]![0]).toBe(expected[2]! ^ 0xff);
      arrived[0]![0]! ^= 0xff;
    }
    port1.close();
    // Given back (twice: the second time changes nothing), the first part's chunks are the next transfer's.
    parts[0]!.release!();
    parts[0]!.release!();
    expect(pool.lentCount).toBe(all.length - chunksOf[0]!.size);
    const next = axfrStream(tree, 8, q, 16_000, 0, pool).first;
    expect(chunksOf[0]!.has(next[0]!.buffer)).toBe(true);
    for (const c of chunksOf.slice(1)) for (const m of next) expect(c.has(m.buffer)).toBe(false);
  });

  it('gives back a chunk taken for a message still open when its part ended', () => {
    // A part of one message each: a part ends wherever a chunk fills, with the next message open in a new chunk
    // that no part refers to (it was lent and never given back).
    const unused = new ChunkPool();
    const chunks = new FramedChunks(unused);
    chunks.openRoom(100);
    expect(unused.lentCount).toBe(1);
    chunks.takeChunk();
    expect(unused.lentCount).toBe(0);
    const pool = new ChunkPool();
    const { first, more } = axfrStream(zoneOf(60_000), 9, { name: ORIGIN, type: TYPE.AXFR, klass: 1 }, 16_000, 0, pool);
    let bytesSent = first.reduce((n, m) => n + 2 + m.length, 0);
    first.release!();
    for (let p = more!(); p; p = more!()) {
      bytesSent += p.reduce((n, m) => n + 2 + m.length, 0);
      p.release!();
    }
    // Several chunks' worth (256 KiB each), each part given back once sent: none is left lent.
    expect(bytesSent).toBeGreaterThan(3 * 256 * 1024);
    expect(pool.lentCount).toBe(0);
  });
});

const ORIGIN = 'framed.test';

/** A zone tree of `n` A records. */
function zoneOf(n: number): ZoneTree {
  const ns = ['ns1.stratus.invalid'];
  const tree = new ZoneTree({ id: 'z', name: ORIGIN, serial: 1, nameServers: ns, settings: readServingSettings('{}', '{}', ns) }, { ipv4: ['192.0.2.1'], ipv6: [] });
  const records: SnapshotRecord[] = Array.from({ length: n }, (_, i) => ({ id: `r${i}`, name: `h${i}.${ORIGIN}`, type: 'A', content: `10.0.${i >> 8}.${i & 255}`, data: null, priority: null, ttl: 300, proxied: false, settings: {} }));
  tree.apply(records.map((r) => ({ id: r.id, before: null, after: r })), 2);
  return tree;
}
