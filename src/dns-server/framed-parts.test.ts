import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { readServingSettings } from '../dns/snapshot-settings.js';
import type { SnapshotRecord } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { TYPE } from '../dns/wire/constants.js';
import { axfrStream } from './axfr.js';
import { FramedChunks, framedRuns, transferList } from './framed-parts.js';

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
    expect(framedRuns([Buffer.from([0, 3, 9, 9, 9]).subarray(2), Buffer.from([1])])).toBeUndefined();
    expect(transferList(plain)).toEqual([]);
    const chunks = new FramedChunks();
    const mine = [chunks.push(bytes(10, 1), 10), chunks.push(bytes(20, 2), 20)];
    const list = transferList([...mine, ...plain]);
    expect(list).toEqual([mine[0]!.buffer]);
  });

  it('hands a streamed AXFR part to another thread without a copy, the same bytes arriving', () => {
    const origin = 'framed.test';
    const ns = ['ns1.stratus.invalid'];
    const tree = new ZoneTree({ id: 'z', name: origin, serial: 1, nameServers: ns, settings: readServingSettings('{}', '{}', ns) }, { ipv4: ['192.0.2.1'], ipv6: [] });
    const records: SnapshotRecord[] = Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, name: `h${i}.${origin}`, type: 'A', content: `10.0.${i >> 8}.${i & 255}`, data: null, priority: null, ttl: 300, proxied: false, settings: {} }));
    tree.apply(records.map((r) => ({ id: r.id, before: null, after: r })), 2);
    const { first, more } = axfrStream(tree, 7, { name: origin, type: TYPE.AXFR, klass: 1 }, 16_000, 0);
    const parts = [first];
    for (let p = more!(); p; p = more!()) parts.push(p);
    const { port1, port2 } = new MessageChannel();
    for (const part of parts) {
      const expected = framedCopy(part);
      const list = transferList(part);
      expect(list.length).toBe(1);
      port1.postMessage(part, list);
      expect(list[0]!.byteLength).toBe(0); // moved, not copied
      const got = receiveMessageOnPort(port2)!.message as Uint8Array[];
      const arrived = got.map((m) => Buffer.from(m.buffer, m.byteOffset, m.byteLength));
      expect(Buffer.concat(framedRuns(arrived)!).equals(expected)).toBe(true);
    }
    port1.close();
  });
});
