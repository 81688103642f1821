import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { readServingSettings } from '../dns/snapshot-settings.js';
import type { SnapshotRecord, SnapshotZone } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { TYPE } from '../dns/wire/constants.js';
import { axfrMessages, axfrStream } from './axfr.js';

const ORIGIN = 'big.test';
const NS = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];
const EDGE = { ipv4: ['192.0.2.10'], ipv6: ['2001:db8::10'] };
const QUESTION = { name: ORIGIN, type: TYPE.AXFR, klass: 1 };

function zone(serial: number, flattenAll: boolean): SnapshotZone {
  return { id: 'z', name: ORIGIN, serial, nameServers: NS, settings: readServingSettings(JSON.stringify({ flatten_all_cnames: flattenAll }), '{}', NS) };
}

function a(i: number, extra: Partial<SnapshotRecord> = {}): SnapshotRecord {
  return { id: `r${i}`, name: `h${i}.${ORIGIN}`, type: 'A', content: `10.0.${i >> 8 & 255}.${i & 255}`, data: null, priority: null, ttl: 300, proxied: i % 7 === 0, settings: {}, ...extra };
}

/** Every record of a transfer, one presentation line each, sorted; and the message count. */
function lines(messages: Buffer[]): { all: string[]; soaFirstAndLast: boolean } {
  const rrs = messages.flatMap((m) => dnsPacket.decode(m).answers ?? []);
  const all = rrs.map((r) => `${r.name} ${r.type} ${JSON.stringify((r as { data?: unknown }).data)}`).sort();
  return { all, soaFirstAndLast: rrs[0]?.type === 'SOA' && rrs.at(-1)?.type === 'SOA' };
}

describe('streamed AXFR of a zone tree', () => {
  it('sends the version of the zone at its start, in slices, whatever changes meanwhile', () => {
    const tree = new ZoneTree(zone(10, false), EDGE);
    const records = [...Array.from({ length: 9000 }, (_, i) => a(i)),
      { ...a(9001), name: `www.${ORIGIN}`, type: 'CNAME' as const, content: `h1.${ORIGIN}`, proxied: false, settings: { flatten_cname: true } },
      { ...a(9002), name: `sub.${ORIGIN}`, type: 'NS' as const, content: 'ns.elsewhere.test', proxied: false }];
    tree.apply(records.map((r) => ({ id: r.id, before: null, after: r })), 11);
    const expected = lines(axfrMessages(tree, 7, QUESTION));

    const { first, more } = axfrStream(tree, 7, QUESTION, 16_000, 0); // a batch of names per part
    expect(more).toBeDefined();
    expect(dnsPacket.decode(first[0]!).questions).toEqual([{ name: ORIGIN, type: 'AXFR', class: 'IN' }]);
    // Between slices: records deleted, moved, added (the flattened CNAME's target too), settings changed, serial bumped.
    tree.apply([
      ...Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, before: a(i), after: null })),
      { id: 'r5000', before: a(5000), after: a(5000, { content: '10.9.9.9' }) },
      { id: 'new', before: null, after: a(20_000) },
    ], 12);
    const messages = [...first];
    let parts = 1;
    for (let part = more!(); part !== undefined; part = more!()) {
      messages.push(...(part as Buffer[]));
      parts++;
      if (parts === 2) tree.setZone(zone(13, true));
    }
    expect(parts).toBeGreaterThan(3);
    const got = lines(messages);
    expect(got.soaFirstAndLast).toBe(true);
    expect(got.all).toEqual(expected.all);
    expect(got.all.filter((l) => l.includes(' SOA ')).every((l) => l.includes('"serial":11'))).toBe(true);
    // The tree itself moved on.
    expect(lines(axfrMessages(tree, 7, QUESTION)).all).not.toEqual(expected.all);
  });
});
