/**
 * A streamed transfer's shared chunks (framed-parts.ts) over a real TCP listener: each part's chunks are given
 * back once the connection has taken them, and only then, whether the client reads the whole transfer or goes
 * away in the middle.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readServingSettings } from '../dns/snapshot-settings.js';
import type { SnapshotRecord } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { TYPE } from '../dns/wire/constants.js';
import { Writer } from '../dns/wire/writer.js';
import { silentLogger } from '../shared/logger.js';
import { axfrStream } from './axfr.js';
import { ChunkPool } from './framed-parts.js';
import { startListeners, type Listeners, type QueryHandler } from './listeners.js';
import type { Responses } from './query-types.js';

const ORIGIN = 'release.test';
const QUESTION = { name: ORIGIN, type: TYPE.AXFR, klass: 1 };

/** A zone tree of `n` A records. */
function zoneOf(n: number): ZoneTree {
  const ns = ['ns1.stratus.invalid'];
  const tree = new ZoneTree({ id: 'z', name: ORIGIN, serial: 1, nameServers: ns, settings: readServingSettings('{}', '{}', ns) }, { ipv4: ['192.0.2.1'], ipv6: [] });
  const records: SnapshotRecord[] = Array.from({ length: n }, (_, i) => ({ id: `r${i}`, name: `h${i}.${ORIGIN}`, type: 'A', content: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, data: null, priority: null, ttl: 300, proxied: false, settings: {} }));
  tree.apply(records.map((r) => ({ id: r.id, before: null, after: r })), 2);
  return tree;
}

/** Every message of a whole transfer, made at once without a pool: what the client must receive. */
function expectedStream(tree: ZoneTree): Buffer {
  const { first, more } = axfrStream(tree, 1, QUESTION, 16_000, 0, new ChunkPool());
  const all = [...first];
  for (let p = more!(); p; p = more!()) all.push(...p);
  return Buffer.concat(all.flatMap((m) => [Buffer.from([m.length >> 8, m.length & 0xff]), m]));
}

/** A handler answering every query with a streamed AXFR of `tree`, its chunks lent from `pool`. */
function transferring(tree: ZoneTree, pool: ChunkPool): QueryHandler {
  return {
    handle(): Responses {
      const { first, more } = axfrStream(tree, 1, QUESTION, 16_000, 1, pool);
      return more ? Object.assign(first, { more }) : first;
    },
  };
}

/** An AXFR query behind its TCP length. */
function axfrQuery(): Buffer {
  const w = new Writer(512);
  for (const v of [1, 0, 1, 0, 0, 0]) w.u16(v);
  w.name(ORIGIN);
  w.u16(TYPE.AXFR);
  w.u16(1);
  const msg = w.result();
  return Buffer.concat([Buffer.from([msg.length >> 8, msg.length & 0xff]), msg]);
}

/** Waits for `check` to hold. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

let listeners: Listeners | undefined;
afterEach(async () => { await listeners?.close(); listeners = undefined; });

describe('a streamed transfer over TCP', () => {
  it('gives every part\'s chunks back once written, and the client gets the transfer byte for byte', async () => {
    const tree = zoneOf(60_000);
    const pool = new ChunkPool();
    listeners = await startListeners(transferring(tree, pool), { host: '127.0.0.1', port: 0, tcpIdleMs: 30_000 }, silentLogger());
    const expected = expectedStream(tree);
    const conn = net.connect(listeners.port, '127.0.0.1');
    conn.write(axfrQuery());
    const got: Buffer[] = [];
    let length = 0;
    let mostLent = 0;
    await new Promise<void>((resolve, reject) => {
      conn.on('data', (d: Buffer) => {
        got.push(d);
        length += d.length;
        mostLent = Math.max(mostLent, pool.lentCount);
        if (length >= expected.length) resolve();
      });
      conn.on('error', reject);
    });
    expect(Buffer.concat(got).equals(expected)).toBe(true);
    // Reused as the connection took them: a part or two out at a time, not the transfer's ~1.7 MB in new chunks.
    expect(mostLent).toBeLessThanOrEqual(4);
    await until(() => pool.lentCount === 0);
    conn.destroy();
  });

  it('gives the chunks back when the client goes away in the middle', async () => {
    const tree = zoneOf(60_000);
    const pool = new ChunkPool();
    listeners = await startListeners(transferring(tree, pool), { host: '127.0.0.1', port: 0, tcpIdleMs: 30_000 }, silentLogger());
    const conn = net.connect(listeners.port, '127.0.0.1');
    conn.write(axfrQuery());
    await new Promise<void>((resolve) => conn.once('data', () => resolve()));
    conn.destroy();
    await until(() => pool.lentCount === 0);
  });
});
