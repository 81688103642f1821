/**
 * The packet cache files each answer under the names it depends on: a changeset drops the answers of the
 * names it changed and the zone's answers that depend on anything (negative answers, wildcards), and keeps the
 * rest. Checked through the handler with a zone tree: a change applied to the tree but announced for other
 * names only is not seen by a cached answer, which proves the answer came from the cache.
 */
import { describe, expect, it } from 'vitest';
import { DnsHandler, type SnapshotSource } from './handler.js';
import { ZoneSet } from './zone-set.js';
import { ZoneTree, type RecordChange } from '../dns/zone-tree.js';
import { readServingSettings } from '../dns/snapshot-settings.js';
import { decodeMessage, encodeMessage } from '../dns/wire/message.js';
import { Writer } from '../dns/wire/writer.js';
import { TYPE } from '../dns/wire/constants.js';
import { silentLogger } from '../shared/logger.js';
import type { SnapshotRecord } from '../dns/snapshot.js';

const NS = ['ns1.stratus.invalid'];

function a(id: string, name: string, content: string): SnapshotRecord {
  return { id, name, type: 'A', content, data: null, priority: null, ttl: 60, proxied: false, settings: {} };
}

function setup() {
  const zones = new ZoneSet<ZoneTree>();
  const tree = new ZoneTree({ id: 'z', name: 'pc.test', serial: 1, nameServers: NS, settings: readServingSettings('{}', '{}', NS) }, { ipv4: [], ipv6: [] });
  zones.put(tree);
  const source: SnapshotSource = { find: (q) => zones.find(q), pendingFor: () => undefined, onInvalidate: (l) => zones.onInvalidate(l) };
  const handler = new DnsHandler(source, [], silentLogger());
  let serial = 1;
  /** Applies changes; `announce` lists the names told to caches (default: what the tree reports). */
  const change = (changes: RecordChange[], announce?: string[]) => {
    const report = tree.apply(changes, ++serial);
    zones.invalidate({ zoneId: 'z', names: announce ?? report.names });
  };
  const ask = (name: string): { rcode: number; answers: string[] } => {
    const w = new Writer();
    encodeMessage(w, { id: 7, qr: false, opcode: 0, aa: false, rd: false, rcode: 0, question: { name, type: TYPE.A, klass: 1 }, answers: [], authorities: [], additionals: [] });
    const out = handler.handle(w.result(), { transport: 'udp', address: '127.0.0.1' });
    if (!Array.isArray(out)) throw new Error('unexpected wait');
    const m = decodeMessage(out[0]!);
    return { rcode: m.rcode, answers: m.answers.map((r) => [...(r.rdata as Uint8Array)].join('.')) };
  };
  return { change, ask };
}

describe('packet cache invalidation', () => {
  it('keeps answers of names a change did not touch, drops those it did', () => {
    const { change, ask } = setup();
    change([{ id: '1', before: null, after: a('1', 'www.pc.test', '192.0.2.1') }, { id: '2', before: null, after: a('2', 'api.pc.test', '192.0.2.2') }]);
    expect(ask('www.pc.test').answers).toEqual(['192.0.2.1']);
    expect(ask('api.pc.test').answers).toEqual(['192.0.2.2']);
    // www changes in the tree, but only api is announced: www's cached answer stays (it is served from the cache).
    change([{ id: '1', before: a('1', 'www.pc.test', '192.0.2.1'), after: a('1', 'www.pc.test', '192.0.2.9') }], ['api.pc.test']);
    expect(ask('www.pc.test').answers).toEqual(['192.0.2.1']);
    // Announced properly, the change is seen at once.
    change([], ['www.pc.test']);
    expect(ask('www.pc.test').answers).toEqual(['192.0.2.9']);
  });

  it('drops negative and wildcard answers on any change of the zone', () => {
    const { change, ask } = setup();
    change([{ id: '1', before: null, after: a('1', 'www.pc.test', '192.0.2.1') }]);
    expect(ask('nx.pc.test').rcode).toBe(3); // NXDOMAIN, cached
    // A change announced for another name drops it all the same: negative answers carry the serial.
    change([{ id: 'n', before: null, after: a('n', 'nx.pc.test', '192.0.2.4') }], ['other.pc.test']);
    expect(ask('nx.pc.test').answers).toEqual(['192.0.2.4']);
    change([{ id: 'w', before: null, after: a('w', '*.pc.test', '192.0.2.5') }]);
    expect(ask('x.pc.test').answers).toEqual(['192.0.2.5']); // synthesized from the wildcard, cached
    change([{ id: 'w', before: a('w', '*.pc.test', '192.0.2.5'), after: a('w', '*.pc.test', '192.0.2.6') }], ['other.pc.test']);
    expect(ask('x.pc.test').answers).toEqual(['192.0.2.6']);
    expect(ask('www.pc.test').answers).toEqual(['192.0.2.1']);
  });
});
