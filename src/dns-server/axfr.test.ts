import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { readServingSettings } from '../dns/snapshot-settings.js';
import type { SnapshotRecord, SnapshotZone } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { TYPE } from '../dns/wire/constants.js';
import { axfrMessages, axfrStream, transferView } from './axfr.js';

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
  it('answers with its first messages at once, however long a part may take', () => {
    const tree = new ZoneTree(zone(10, false), EDGE);
    tree.apply(Array.from({ length: 20_000 }, (_, i) => ({ id: `r${i}`, before: null, after: a(i) })), 11);
    // A part may take a minute: the whole zone would fit in one, but the first part ends with its first batch.
    const { first, more } = axfrStream(tree, 7, QUESTION, 16_000, 60_000);
    const rest: Buffer[] = [];
    for (let part = more!(); part !== undefined; part = more!()) rest.push(...(part as Buffer[]));
    expect(first.length).toBeGreaterThan(0);
    expect(rest.length).toBeGreaterThan(4 * first.length);
    expect(lines([...first, ...rest]).all).toEqual(lines(axfrMessages(tree, 7, QUESTION)).all);
  });

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

  it('sends every record as the derived rrsets have it, whether a name is read from its packed form or derived', () => {
    const tree = new ZoneTree(zone(20, false), EDGE);
    const r = (i: number, name: string, type: SnapshotRecord['type'], content: string, extra: Partial<SnapshotRecord> = {}): SnapshotRecord =>
      ({ id: `p${i}`, name: `${name}.${ORIGIN}`, type, content, data: null, priority: null, ttl: 300, proxied: false, settings: {}, ...extra });
    const records = [
      r(1, 'a', 'A', '192.0.2.1'), r(2, 'a', 'A', '192.0.2.2', { ttl: 60 }), r(3, 'auto', 'A', '192.0.2.3', { ttl: 1 }),
      r(4, 'six', 'AAAA', '2001:db8::1'), r(5, 'six', 'A', '192.0.2.4'),
      r(6, 'txt', 'TXT', '"one" "two words" bare'), r(7, 'txt', 'TXT', ''), r(8, 'esc', 'TXT', '"a\\"b" "\\065"'),
      r(9, 'long', 'TXT', 'x'.repeat(300)), r(10, 'utf', 'TXT', '"héllo"'),
      // Types in two runs at one name: the derived rrsets gather them, so this name is derived.
      r(11, 'mixed', 'A', '192.0.2.5'), r(12, 'mixed', 'TXT', '"between"'), r(13, 'mixed', 'A', '192.0.2.6', { ttl: 120 }),
      r(14, 'bad', 'A', '999.1.1.1'), r(15, 'bad', 'A', '192.0.2.7'), r(16, 'lead', 'A', '192.0.2.08'),
      r(17, 'px', 'A', '192.0.2.8', { proxied: true }), r(18, 'mx', 'MX', `mail.${ORIGIN}`, { priority: 10 }),
      r(19, 'cn', 'CNAME', `a.${ORIGIN}`), r(20, 'caa', 'CAA', '', { data: { flags: 0, tag: 'issue', value: 'ca.example' } }),
      r(21, 'UPPER', 'A', '192.0.2.9'),
    ];
    tree.apply(records.map((x) => ({ id: x.id, before: null, after: x })), 21);
    const derived = lines(axfrMessages(tree, 7, QUESTION));
    const messages: Buffer[] = [];
    const { first, more } = axfrStream(tree, 7, QUESTION, 200, 0); // small messages: owners compressed across many
    messages.push(...first);
    for (let part = more!(); part !== undefined; part = more!()) messages.push(...(part as Buffer[]));
    const streamed = lines(messages);
    expect(streamed.soaFirstAndLast).toBe(true);
    expect(streamed.all).toEqual(derived.all);
    expect(messages.length).toBeGreaterThan(3);
    // TTLs too: an rrset's is its lowest record's; an automatic TTL is 300.
    const ttls = messages.flatMap((m) => dnsPacket.decode(m).answers ?? []).map((x) => `${x.name} ${x.type} ${(x as { ttl?: number }).ttl}`);
    expect(ttls).toContain(`a.${ORIGIN} A 60`);
    expect(ttls.filter((t) => t === `a.${ORIGIN} A 60`)).toHaveLength(2);
    expect(ttls).toContain(`auto.${ORIGIN} A 300`);
    expect(ttls.filter((t) => t.startsWith(`bad.${ORIGIN} `))).toEqual([`bad.${ORIGIN} A 300`]);
  });

  it("keeps a node's records as they were when the transfer began (nodes change in place; plain names are replaced)", () => {
    const tree = new ZoneTree(zone(30, false), EDGE);
    const filler = Array.from({ length: 5000 }, (_, i) => a(i, { proxied: false }));
    const node = { ...a(90_001), name: `n.${ORIGIN}`, proxied: false, content: '192.0.2.1' };
    const child = { ...a(90_002), name: `c.n.${ORIGIN}`, proxied: false, content: '192.0.2.2' };
    tree.apply([...filler, node, child].map((r) => ({ id: r.id, before: null, after: r })), 31);
    const expected = lines(axfrMessages(tree, 7, QUESTION));
    const { first, more } = axfrStream(tree, 7, QUESTION, 16_000, 0);
    // `n` has a child, so the tree keeps it as a node: its records change in that node, after the freeze.
    tree.apply([{ id: node.id, before: node, after: { ...node, content: '192.0.2.99' } }, { id: 'n2', before: null, after: { ...node, id: 'n2', content: '192.0.2.3' } }], 32);
    const messages = [...first];
    for (let part = more!(); part !== undefined; part = more!()) messages.push(...(part as Buffer[]));
    expect(messages.length).toBeGreaterThan(3);
    const got = lines(messages).all;
    expect(got).toEqual(expected.all);
    expect(got).toContain(`n.${ORIGIN} A "192.0.2.1"`);
    expect(got.some((l) => l.includes('192.0.2.99') || l.includes('192.0.2.3'))).toBe(false);
  });

  it('reads the names live until the tree changes, and keeps its version when a change comes between two steps of another', () => {
    const tree = new ZoneTree(zone(50, false), EDGE);
    const filler = Array.from({ length: 6000 }, (_, i) => a(i, { proxied: false }));
    tree.apply(filler.map((r) => ({ id: r.id, before: null, after: r })), 51);
    // A change in steps: the transfer begins after its first step (the version it sends is the tree's then).
    // It removes and changes names the transfer has not read yet (the last ones of the tree's order).
    const steps = tree.applySteps([
      ...Array.from({ length: 1500 }, (_, i) => ({ id: `r${4500 + i}`, before: a(4500 + i, { proxied: false }), after: null })),
      { id: 'r4000', before: a(4000, { proxied: false }), after: a(4000, { proxied: false, content: '10.9.9.9' }) },
      { id: 'late', before: null, after: a(30_000, { proxied: false }) },
    ], 52);
    expect(steps.next().done).toBe(false);
    const expected = lines(axfrMessages(tree, 7, QUESTION)).all;
    const { first, more } = axfrStream(tree, 7, QUESTION, 16_000, 0);
    const messages = [...first];
    // A part read live, then the rest of the change's steps, then another change, then the remaining parts.
    messages.push(...(more!() as Buffer[]));
    for (let r = steps.next(); !r.done; r = steps.next()) { /* the change goes on */ }
    tree.setZone(zone(53, true));
    tree.apply([{ id: 'after', before: null, after: a(40_000, { proxied: false }) }], 54);
    for (let part = more!(); part !== undefined; part = more!()) messages.push(...(part as Buffer[]));
    const got = lines(messages).all;
    expect(got).toEqual(expected);
    expect(got.some((l) => l.includes('10.0.156.64') || l.includes('10.9.9.9'))).toBe(false); // after the transfer began
    expect(got.filter((l) => l.startsWith('h5999.'))).toHaveLength(1); // removed after the transfer began
  });

  it('copies the version whole for a signed transfer read by name, even when the tree changes before the first read', () => {
    const tree = new ZoneTree(zone(60, false), EDGE);
    tree.apply([a(1, { proxied: false }), a(2, { proxied: false })].map((r) => ({ id: r.id, before: null, after: r })), 61);
    const view = transferView(tree);
    tree.apply([{ id: 'r1', before: a(1, { proxied: false }), after: null }, { id: 'new', before: null, after: a(3, { proxied: false }) }], 62);
    expect([...view.nodes.keys()].sort()).toEqual([ORIGIN, `h1.${ORIGIN}`, `h2.${ORIGIN}`].sort());
    expect(view.nodes.get(`h1.${ORIGIN}`)?.rrsets.get(TYPE.A)?.records).toHaveLength(1);
    expect(view.nodes.has(`h3.${ORIGIN}`)).toBe(false);
  });

  it("points plain owners at the zone's name wherever a message first wrote it", () => {
    const tree = new ZoneTree(zone(40, false), EDGE);
    const r = (i: number, name: string, type: SnapshotRecord['type'], content: string): SnapshotRecord =>
      ({ id: `q${i}`, name: `${name}.${ORIGIN}`, type, content, data: null, priority: null, ttl: 300, proxied: false, settings: {} });
    // The zone's name first written by the question, by a derived record (the MX, a name in "test" in its RDATA)
    // or by a plain owner, in messages of every size: each plain owner after it points there.
    const records = [r(1, 'mx', 'MX', 'mail.other.test'), ...Array.from({ length: 400 }, (_, i) => r(10 + i, `h${i}`, i % 2 ? 'TXT' : 'A', i % 2 ? `"t${i}"` : `192.0.2.${i % 250}`))];
    tree.apply(records.map((x) => ({ id: x.id, before: null, after: { ...x, priority: x.type === 'MX' ? 10 : null } })), 41);
    const derived = lines(axfrMessages(tree, 7, QUESTION)).all;
    for (const maxBytes of [300, 1000, 65_000]) {
      const { first, more } = axfrStream(tree, 7, QUESTION, maxBytes, 0);
      const messages = [...first];
      for (let part = more?.(); part !== undefined; part = more!()) messages.push(...(part as Buffer[]));
      expect(lines(messages).all).toEqual(derived);
    }
    expect(derived.filter((l) => l.includes(` A `) || l.includes(' TXT '))).toHaveLength(400);
  });
});
