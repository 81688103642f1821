/**
 * Property test of the incremental zone tree: random changesets (creates, updates that move records between
 * names and types, deletes, big batches) and settings changes (flattening, multi-provider NS, http2/http3,
 * SOA), over a small name space so that wildcards, empty non-terminals, CNAME chains and loops, delegations,
 * proxied and flattened names collide. After every step the tree must equal `buildSnapshot` of the same records,
 * give back exactly the records it was given (they are kept packed, packed-records.ts), and keep every name that
 * needs nothing but its records in the packed form alone (zone-tree-node.ts).
 */
import { describe, expect, it } from 'vitest';
import { buildSnapshot, type SnapshotRecord, type SnapshotZone, type ZoneSnapshot } from './snapshot.js';
import { readServingSettings } from './snapshot-settings.js';
import { ZoneTree, type RecordChange } from './zone-tree.js';
import { lookup } from './lookup.js';
import { TYPE } from './wire/constants.js';
import { canonicalSnapshot } from './snapshot-compare.js';
import { TreeNode } from './zone-tree-node.js';
import { recordKey } from './zone-journal.js';
import { transferRecords } from '../dns-server/axfr.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';

const ORIGIN = 'ex.test';
const NS = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];
const EDGE = { ipv4: ['192.0.2.10', '192.0.2.11'], ipv6: ['2001:db8::10'] };
const LABELS = ['@', 'a', 'b', 'a.b', 'x.a.b', 'y.x.a.b', '*', '*.b', '*.a.b', 'c.d.e', 'sub', 'h.sub', 'ns.sub', 'w.sub', 'm', 'n'];


function full(label: string): string {
  return label === '@' ? ORIGIN : `${label}.${ORIGIN}`;
}

let seq = 0;
/** Ids as the API makes them (32 hex digits, packed as 16 bytes) or any other string. */
function nextId(r: () => number): string {
  return r() < 0.5 ? `r${++seq}` : (++seq).toString(16).padStart(32, 'c');
}

function randomRecord(r: () => number, id = nextId(r)): SnapshotRecord {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const name = full(pick(LABELS));
  const type = pick(['A', 'A', 'AAAA', 'CNAME', 'CNAME', 'MX', 'TXT', 'NS', 'CAA', 'SRV'] as const);
  const proxied = (type === 'A' || type === 'AAAA' || type === 'CNAME') && r() < 0.25;
  const settings: SnapshotRecord['settings'] = {};
  if (type === 'CNAME' && r() < 0.3) settings.flatten_cname = true;
  if (proxied && r() < 0.2) settings.ipv4_only = true;
  else if (proxied && r() < 0.2) settings.ipv6_only = true;
  const ttl = pick([1, 60, 300, 3600]);
  const base = { id, name, type, data: null, priority: null, ttl, proxied, settings };
  switch (type) {
    // Now and then content that cannot be encoded: the record is kept but not served.
    case 'A': return { ...base, content: r() < 0.05 ? 'not-an-address' : `198.51.100.${1 + Math.floor(r() * 5)}` };
    case 'AAAA': return { ...base, content: `2001:db8::${1 + Math.floor(r() * 5)}` };
    case 'CNAME': return { ...base, content: r() < 0.15 ? 'elsewhere.example.net' : full(pick(LABELS)).replace('*', 'q') };
    case 'MX': return { ...base, content: full(pick(LABELS)).replace('*', 'q'), priority: 10 };
    case 'TXT': return { ...base, content: `"t${Math.floor(r() * 4)}"` };
    case 'NS': return { ...base, content: r() < 0.5 ? full('ns.sub') : 'ns.elsewhere.example.net' };
    case 'CAA': return { ...base, content: '0 issue "ca.example"', data: { flags: 0, tag: 'issue', value: 'ca.example' } };
    case 'SRV': return { ...base, content: `5 443 ${full('m')}`, priority: 10, data: { priority: 10, weight: 5, port: 443, target: full('m') } };
  }
}

function randomSettings(r: () => number, serial: number): SnapshotZone {
  const dns = { flatten_all_cnames: r() < 0.3, multi_provider: r() < 0.3, ns_ttl: r() < 0.5 ? 86400 : 600, soa: { ttl: r() < 0.5 ? 3600 : 900, min_ttl: 1800 } };
  const zone = { http3: { value: r() < 0.4 ? 'on' : 'off' }, http2: { value: r() < 0.3 ? 'on' : 'off' }, _zone: { paused: r() < 0.25 } };
  return { id: 'z', name: ORIGIN, serial, nameServers: NS, settings: readServingSettings(JSON.stringify(dns), JSON.stringify(zone), NS) };
}

function reference(zone: SnapshotZone, records: Iterable<SnapshotRecord>): ZoneSnapshot {
  return buildSnapshot(zone, [...records], EDGE);
}

/** Names kept as nodes although nothing but their records sets them apart (they should be packed records alone). */
function uncompacted(tree: ZoneTree): string[] {
  const slots = (tree as unknown as { slots: Map<string, unknown> }).slots;
  return [...slots].filter(([name, slot]) => slot instanceof TreeNode && slot.plain && name !== tree.origin).map(([name]) => name);
}

describe('ZoneTree', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 33]) {
    it(`applies random changesets exactly like a full rebuild (seed ${seed})`, () => {
      const r = seededRandom(seed);
      let serial = 2026010100;
      let zone = randomSettings(r, serial);
      const model = new Map<string, SnapshotRecord>();
      const tree = new ZoneTree(zone, EDGE);
      for (let step = 0; step < 150; step++) {
        serial++;
        const roll = r();
        if (roll < 0.08) {
          zone = { ...randomSettings(r, serial) };
          tree.setZone(zone);
        } else {
          const changes: RecordChange[] = [];
          const size = roll < 0.15 ? 40 + Math.floor(r() * 60) : 1 + Math.floor(r() * 3);
          for (let i = 0; i < size; i++) {
            const ids = [...model.keys()];
            const op = r();
            if (op < 0.5 || ids.length === 0) {
              const after = randomRecord(r);
              model.set(after.id, after);
              changes.push({ id: after.id, before: null, after });
            } else if (op < 0.75) {
              const id = ids[Math.floor(r() * ids.length)]!;
              const after = randomRecord(r, id);
              changes.push({ id, before: model.get(id)!, after });
              model.set(id, after);
            } else {
              const id = ids[Math.floor(r() * ids.length)]!;
              changes.push({ id, before: model.get(id)!, after: null });
              model.delete(id);
            }
          }
          tree.apply(changes, serial);
        }
        zone = { ...zone, serial: tree.serial };
        const held = [...tree.records()].sort((x, y) => x.id.localeCompare(y.id));
        expect(held).toEqual([...model.values()].sort((x, y) => x.id.localeCompare(y.id)));
        // Built from the records in the tree's order: with several CNAMEs at a name (the API refuses that) the
        // one served depends on the order, and an rrset is a set anyway.
        const ref = reference(zone, tree.records());
        expect(canonicalSnapshot(tree)).toEqual(canonicalSnapshot(ref));
        expect(uncompacted(tree)).toEqual([]);
        expect(tree.skipped.map((s) => s.id).sort()).toEqual(ref.skipped.map((s) => s.id).sort());
      }
    });
  }

  it('replaying changes it already holds changes nothing (catch-up after a reload)', () => {
    const r = seededRandom(99);
    const zone = randomSettings(r, 10);
    const tree = new ZoneTree(zone, EDGE);
    const changes: RecordChange[] = [];
    for (let i = 0; i < 50; i++) { const after = randomRecord(r); changes.push({ id: after.id, before: null, after }); }
    const moved = { ...changes[0]!.after!, name: full('m') };
    changes.push({ id: moved.id, before: changes[0]!.after, after: moved });
    tree.apply(changes, 11);
    const once = canonicalSnapshot(tree);
    tree.apply(changes, 11);
    expect(canonicalSnapshot(tree)).toEqual(once);
  });

  it('answers from a patched tree like lookup on a full build', () => {
    const zone = randomSettings(seededRandom(5), 1);
    const tree = new ZoneTree(zone, EDGE);
    const a: SnapshotRecord = { id: 'a1', name: full('a'), type: 'A', content: '198.51.100.1', data: null, priority: null, ttl: 60, proxied: false, settings: {} };
    tree.apply([{ id: 'a1', before: null, after: a }], 2);
    expect(lookup(tree, full('a'), TYPE.A).answer).toHaveLength(1);
    expect(lookup(tree, full('b'), TYPE.A).rcode).toBe(3);
    tree.apply([{ id: 'a1', before: a, after: null }], 3);
    expect(lookup(tree, full('a'), TYPE.A).rcode).toBe(3);
    expect(tree.nodes.size).toBe(1);
  });
});

/** The served records of a version, the apex SOA left out, as comparable keys (what AXFR carries). */
function servedKeys(tree: ZoneTree): Set<string> {
  return new Set(transferRecords(tree).slice(1, -1).map(recordKey));
}

describe('ZoneTree journal (IXFR)', () => {
  for (const seed of [11, 12, 13, 14, 15, 16]) {
    it(`the condensed difference from any kept version gives exactly the current version (seed ${seed})`, () => {
      const r = seededRandom(seed);
      let serial = 2026010100;
      ZoneTree.setJournalVersions(8);
      const tree = new ZoneTree(randomSettings(r, serial), EDGE);
      ZoneTree.setJournalVersions(0);
      const model = new Map<string, SnapshotRecord>();
      const versions = new Map<number, Set<string>>([[tree.serial, servedKeys(tree)]]);
      let checked = 0;
      for (let step = 0; step < 80; step++) {
        serial++;
        if (r() < 0.05) tree.setZone({ ...randomSettings(r, serial) });
        else {
          const changes: RecordChange[] = [];
          for (let i = 0, size = 1 + Math.floor(r() * 4); i < size; i++) {
            const ids = [...model.keys()];
            if (r() < 0.55 || ids.length === 0) {
              const after = randomRecord(r);
              model.set(after.id, after);
              changes.push({ id: after.id, before: null, after });
            } else {
              const id = ids[Math.floor(r() * ids.length)]!;
              changes.push({ id, before: model.get(id)!, after: null });
              model.delete(id);
            }
          }
          tree.apply(changes, serial);
        }
        const now = servedKeys(tree);
        versions.set(tree.serial, now);
        for (const [old, keys] of versions) {
          if (old === tree.serial) continue;
          const diff = tree.journal.since(old);
          if (!diff) continue; // past the history or after a reset: a full transfer
          checked++;
          const rebuilt = new Set(keys);
          for (const d of diff.deleted) expect(rebuilt.delete(recordKey(d)), `delete of a record version ${old} lacks`).toBe(true);
          for (const a of diff.added) rebuilt.add(recordKey(a));
          expect([...rebuilt].sort(), `from ${old} to ${tree.serial}`).toEqual([...now].sort());
        }
      }
      expect(tree.journal.newest === tree.serial || tree.journal.newest === undefined).toBe(true);
      expect(checked).toBeGreaterThan(40); // most versions were reachable (resets come from settings and delegations)
    });
  }
});
