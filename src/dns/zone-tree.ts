/**
 * A zone kept current by changesets instead of rebuilds: the served image (a {@link ZoneSnapshot}, so
 * `lookup` and AXFR read it unchanged) plus what is needed to patch it: every name's stored records, the
 * names whose rrsets depend on zone settings (proxied names, CNAMEs) and, for flattened CNAMEs, the names their
 * resolution read. Applying a changeset costs O(changes x log n): only the names a change touches are
 * re-derived (zone-node.ts), with their ancestors (empty non-terminals appear and disappear), the delegation
 * set and the flattened CNAMEs that read them (zone-flatten.ts).
 *
 * Consistency: the tree is patched in place, one changeset at a time, by synchronous steps. A small changeset
 * is applied in one go, so no query (they are answered synchronously too) sees half of it. A large one
 * ({@link ZoneTree.applySteps}) is applied in slices between which the owner (the zone cache) keeps queries
 * for the zone waiting. The result is exactly what `buildSnapshot` gives for the same records and settings
 * (test: zone-tree.test.ts), with records of one rrset possibly in another order.
 */
import { TYPE } from './wire/constants.js';
import { RECORD_TYPES, type RecordType } from './record.js';
import type { WireRecord } from './wire/message.js';
import { inZone, type EdgeAddresses, type RRset, type SnapshotRecord, type SnapshotZone, type ZoneSnapshot } from './snapshot.js';
import { deriveNode, soaRecord, type FlattenSpec } from './zone-node.js';
import { flattened, type DraftView, type Reads } from './zone-flatten.js';
import { link, TreeNode, unlink, type NodeDeriver } from './zone-tree-node.js';

/** One record's change: the record before (null: created) and after (null: deleted). */
export interface RecordChange {
  id: string;
  before: SnapshotRecord | null;
  after: SnapshotRecord | null;
}

/** What a changeset changed, for answer caches: the names whose answers may differ, or the whole zone. */
export interface ChangeReport {
  names: Set<string>;
  /** True when answers anywhere in the zone may differ (delegations or settings changed). */
  wholeZone: boolean;
}

/** Work units between two yields of {@link ZoneTree.applySteps}. */
const SLICE = 32;

function parent(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

const EMPTY: SnapshotRecord[] = [];
const NO_RRSETS: Map<number, RRset> = new Map();
/** One string per record type, instead of one per record read from the database or IPC. */
const TYPE_NAMES = new Map<string, RecordType>(RECORD_TYPES.map((t) => [t, t]));
/** Shared by every record without per-record settings (most), instead of one empty object each. */
const NO_SETTINGS: SnapshotRecord['settings'] = Object.freeze({});

/** Names whose rrsets changed (`content`) and names that appeared or disappeared (`exists`, also in `content`). */
interface Seen {
  content: Set<string>;
  exists: Set<string>;
}

/** A zone image patched by changesets (see the module comment). */
export class ZoneTree implements ZoneSnapshot, NodeDeriver {
  readonly zoneId: string;
  readonly origin: string;
  serial: number;
  readonly nodes = new Map<string, TreeNode>();
  readonly cuts = new Set<string>();
  soa!: RRset;
  negativeSoa!: WireRecord;
  /** Records not served, by id, with the reason. */
  private readonly skippedById = new Map<string, string>();
  /** Stored records of names that do not exist (all their records fail to encode). */
  private readonly dormant = new Map<string, SnapshotRecord[]>();
  private readonly proxiedNames = new Set<string>();
  private readonly cnameNames = new Set<string>();
  /** Flattened CNAME name -> the names its resolution read (rrsets, or only existence); and the reverse. */
  private readonly flatReads = new Map<string, { content: string[]; exists: string[] }>();
  private readonly readers = new Map<string, Set<string>>();
  private readonly probers = new Map<string, Set<string>>();
  private readonly view: DraftView;
  /** Bumped whenever any node changes; the last derivation is reused while it stays. */
  private version = 0;
  private memo: { node: TreeNode; version: number; rrsets: Map<number, RRset> } | undefined;

  constructor(private zone: SnapshotZone, private readonly edge: EdgeAddresses) {
    this.zoneId = zone.id;
    this.origin = zone.name;
    this.serial = zone.serial;
    this.view = {
      origin: this.origin,
      node: (name) => this.nodes.get(name),
      draft: (node, type) => (node as TreeNode).unflattened.get(type),
    };
    for (const _ of this.settle(new Set([this.origin]), { names: new Set(), wholeZone: false })) { /* one name */ }
  }

  /** The served rrsets of a node without explicit ones, from its records. */
  derive(node: TreeNode): Map<number, RRset> {
    if (node.src.length === 0) return NO_RRSETS;
    const m = this.memo;
    if (m && m.node === node && m.version === this.version) return m.rrsets;
    const rrsets = deriveNode(this.zone, node.name, node.src, this.edge).rrsets;
    this.memo = { node, version: this.version, rrsets };
    return rrsets;
  }

  /** Records left out, with the reason. */
  get skipped(): Array<{ id: string; reason: string }> {
    return [...this.skippedById].map(([id, reason]) => ({ id, reason }));
  }

  /** The zone's DNSSEC state, as the zone fields last gave it. */
  get dnssec(): SnapshotZone['dnssec'] {
    return this.zone.dnssec;
  }

  /** The edge addresses proxied records are served with (fixed for the tree's life). */
  get edgeAddresses(): EdgeAddresses {
    return this.edge;
  }

  /** The zone fields the tree was last given. */
  get zoneFields(): SnapshotZone {
    return this.zone;
  }

  /** Every stored record held (for copying the tree elsewhere, e.g. to a DNS worker). */
  *records(): Iterable<SnapshotRecord> {
    for (const node of this.nodes.values()) yield* node.src;
    for (const list of this.dormant.values()) yield* list;
  }

  /** Applies a changeset at once; `serial` is the zone's serial after it. */
  apply(changes: readonly RecordChange[], serial: number): ChangeReport {
    const steps = this.applySteps(changes, serial);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * Applies a changeset in steps of a few hundred units of work (the generator yields between them). Every
   * change is idempotent (a record is put by id, a deleted record may already be gone), so replaying changes
   * the tree already holds is harmless.
   */
  *applySteps(changes: readonly RecordChange[], serial: number): Generator<void, ChangeReport> {
    const report: ChangeReport = { names: new Set(), wholeZone: false };
    const touched = new Set<string>();
    let work = 0;
    for (const c of changes) {
      if (c.before) { this.removeSource(c.before.name, c.id); touched.add(c.before.name); }
      if (c.after) {
        if (!inZone(c.after.name, this.origin)) { this.skippedById.set(c.id, 'outside the zone'); continue; }
        this.putSource(c.after);
        touched.add(c.after.name);
      }
      if (++work % SLICE === 0) yield;
    }
    yield* this.settle(touched, report);
    this.setSerial(serial, report);
    return report;
  }

  /** New zone settings or name servers: the apex and the names depending on settings are re-derived. */
  setZone(zone: SnapshotZone): ChangeReport {
    const steps = this.setZoneSteps(zone);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /** {@link setZone} in steps. */
  *setZoneSteps(zone: SnapshotZone): Generator<void, ChangeReport> {
    const report: ChangeReport = { names: new Set(), wholeZone: true };
    this.zone = { ...zone, name: this.origin, id: this.zoneId, serial: this.serial };
    this.version++;
    const touched = new Set<string>([this.origin, ...this.proxiedNames, ...this.cnameNames]);
    yield* this.settle(touched, report);
    this.setSerial(zone.serial, report);
    return report;
  }

  /** A new serial only changes the apex SOA (in place: no other name reads it). */
  private setSerial(serial: number, report: ChangeReport): void {
    if (serial <= this.serial) return;
    this.serial = serial;
    this.zone = { ...this.zone, serial };
    // A pre-signed zone serves its signer's SOA, whatever Stratus's serial.
    if (this.zone.dnssec?.presigned === true && this.nodes.get(this.origin)!.src.some((r) => r.type === 'SOA')) return;
    const s = this.zone.settings.soa;
    const set: RRset = { type: TYPE.SOA, ttl: s.ttl, records: [soaRecord(this.zone, s.ttl)] };
    const apex = this.nodes.get(this.origin)!;
    apex.fixed!.set(TYPE.SOA, set);
    apex.draft?.set(TYPE.SOA, set);
    this.setSoa(set);
    report.names.add(this.origin);
  }

  private setSoa(set: RRset): void {
    this.soa = set;
    const s = this.zone.settings.soa;
    this.negativeSoa = { ...set.records[0]!, ttl: Math.min(set.ttl, s.ttl, s.minTtl) };
  }

  /**
   * Re-derives the touched names, then the flattened CNAMEs that read any of them (or, for names that appeared
   * or disappeared, that checked their existence on the way to a wildcard).
   */
  private *settle(touched: Set<string>, report: ChangeReport): Generator<void> {
    const seen: Seen = { content: new Set(), exists: new Set() };
    let work = 0;
    for (const name of touched) {
      if (inZone(name, this.origin)) this.rederive(name, report, seen);
      if (++work % SLICE === 0) yield;
    }
    const again = new Set<string>();
    for (const name of seen.content) {
      if (this.nodes.get(name)?.flatten) again.add(name);
      const readers = this.readers.get(name);
      if (readers) for (const r of readers) again.add(r);
    }
    for (const name of seen.exists) {
      const probers = this.probers.get(name);
      if (probers) for (const r of probers) again.add(r);
    }
    for (const name of again) {
      this.reflatten(name, report);
      if (++work % SLICE === 0) yield;
    }
    this.setSoa(this.nodes.get(this.origin)!.rrsets.get(TYPE.SOA)!);
  }

  private srcOf(name: string): SnapshotRecord[] {
    return this.nodes.get(name)?.src ?? this.dormant.get(name) ?? EMPTY;
  }

  private setSrc(name: string, src: SnapshotRecord[]): void {
    this.version++;
    const node = this.nodes.get(name);
    if (node) { node.src = src; return; }
    if (src.length) this.dormant.set(name, src);
    else this.dormant.delete(name);
  }

  private removeSource(name: string, id: string): void {
    const src = this.srcOf(name);
    const i = src.findIndex((r) => r.id === id);
    if (i < 0) return;
    this.setSrc(name, src.length === 1 ? EMPTY : [...src.slice(0, i), ...src.slice(i + 1)]);
    this.skippedById.delete(id);
  }

  /** Stores a record (replacing the one with its id), sharing the strings and objects many records have alike. */
  private putSource(record: SnapshotRecord): void {
    const rec: SnapshotRecord = {
      ...record,
      name: this.nodes.get(record.name)?.name ?? record.name,
      type: TYPE_NAMES.get(record.type) ?? record.type,
      settings: record.settings && Object.keys(record.settings).length === 0 ? NO_SETTINGS : record.settings,
    };
    // Arrays sized exactly: a pushed-to array keeps room for 16 more elements (about 130 bytes per name).
    const held = this.srcOf(rec.name);
    const src = held.length === 0 ? [rec] : held.filter((r) => r.id !== rec.id).concat(rec);
    this.setSrc(rec.name, src);
    this.skippedById.delete(rec.id);
  }

  /** Derives one name from its records; creates or removes the node (and empty non-terminals above it). */
  private rederive(name: string, report: ChangeReport, seen: Seen): void {
    const src = this.srcOf(name);
    const d = deriveNode(this.zone, name, src, this.edge);
    for (const s of d.skipped) this.skippedById.set(s.id, s.reason);
    this.mark(this.proxiedNames, name, d.proxied);
    this.mark(this.cnameNames, name, d.cname);
    let node = this.nodes.get(name);
    if (!node && !d.exists) { this.setSrc(name, src); return; }
    this.version++;
    if (!node) {
      node = new TreeNode(name, src, this);
      this.dormant.delete(name);
      this.nodes.set(name, node);
      seen.exists.add(name);
      this.addChild(parent(name), report, seen);
    }
    node.fixed = name === this.origin ? d.rrsets : undefined;
    node.draft = undefined;
    node.flatten = d.flatten;
    node.own = d.exists;
    report.names.add(name);
    seen.content.add(name);
    this.markCut(name, d.rrsets.has(TYPE.NS), report);
    if (!node.own && node.kids === 0 && name !== this.origin) this.dropNode(node, report, seen);
  }

  private mark(set: Set<string>, name: string, on: boolean): void {
    if (on) set.add(name);
    else set.delete(name);
  }

  private markCut(name: string, isCut: boolean, report: ChangeReport): void {
    if (name === this.origin) return;
    if (isCut === this.cuts.has(name)) return;
    if (isCut) this.cuts.add(name);
    else this.cuts.delete(name);
    report.wholeZone = true;
  }

  private addChild(name: string, report: ChangeReport, seen: Seen): void {
    if (!inZone(name, this.origin) || (name === '' && this.origin !== '')) return;
    const node = this.nodes.get(name);
    if (node) { node.kids++; return; }
    const ent = new TreeNode(name, this.dormant.get(name) ?? EMPTY, this);
    ent.kids = 1;
    ent.own = false;
    this.version++;
    this.dormant.delete(name);
    this.nodes.set(name, ent);
    report.names.add(name);
    seen.content.add(name);
    seen.exists.add(name);
    if (name !== this.origin) this.addChild(parent(name), report, seen);
  }

  private dropNode(node: TreeNode, report: ChangeReport, seen: Seen): void {
    this.nodes.delete(node.name);
    this.version++;
    if (node.src.length) this.dormant.set(node.name, node.src);
    this.markCut(node.name, false, report);
    this.unflatten(node.name);
    report.names.add(node.name);
    seen.content.add(node.name);
    seen.exists.add(node.name);
    const up = parent(node.name);
    const p = this.nodes.get(up);
    if (!p || !inZone(up, this.origin)) return;
    p.kids--;
    if (p.kids === 0 && !p.own && up !== this.origin) this.dropNode(p, report, seen);
  }

  /** Forgets what a flattened name read. */
  private unflatten(name: string): void {
    const reads = this.flatReads.get(name);
    if (!reads) return;
    unlink(this.readers, reads.content, name);
    unlink(this.probers, reads.exists, name);
    this.flatReads.delete(name);
  }

  /** Recomputes the served rrsets of a name with a flattened CNAME (or restores its draft if it has none now). */
  private reflatten(name: string, report: ChangeReport): void {
    this.unflatten(name);
    const node = this.nodes.get(name);
    if (!node) return;
    const draft = node.unflattened;
    this.version++;
    node.draft = undefined;
    node.fixed = name === this.origin ? draft : undefined;
    report.names.add(name);
    if (!node.flatten) return;
    const reads: Reads = { content: new Set(), exists: new Set() };
    const served = flattened(this.view, name, draft, node.flatten.ttl, reads);
    const kept = { content: [...reads.content], exists: [...reads.exists] };
    this.flatReads.set(name, kept);
    link(this.readers, kept.content, name);
    link(this.probers, kept.exists, name);
    if (served) {
      node.draft = draft;
      node.fixed = served;
    }
  }
}
