/**
 * A zone kept current by changesets instead of rebuilds: the served image (a {@link ZoneSnapshot}, so
 * `lookup` and AXFR read it unchanged) plus what is needed to patch it: every name's stored records, the
 * names whose rrsets depend on zone settings (proxied names, CNAMEs) and, for flattened CNAMEs, the names their
 * resolution read. Applying a changeset costs O(changes x log n): only the names a change touches are
 * re-derived (zone-node.ts), with their ancestors (empty non-terminals appear and disappear), the delegation
 * set and the flattened CNAMEs that read them (zone-flatten.ts; who read what: flatten-reads.ts). Each name's
 * stored records are kept by zone-sources.ts.
 *
 * Memory: a name's records are kept packed in one string (packed-records.ts), and a plain name (nearly every name
 * of a big zone) is nothing else: a million-record zone is a map of a million names to a million short strings,
 * about 130 bytes a record, with almost nothing for the garbage collector to trace (zone-tree-node.ts).
 *
 * Consistency: the tree is patched in place, one changeset at a time, by synchronous steps. A small changeset
 * is applied in one go, so no query (they are answered synchronously too) sees half of it. A large one
 * ({@link ZoneTree.applySteps}) is applied in slices between which the owner (the zone cache) keeps queries
 * for the zone waiting. The result is exactly what `buildSnapshot` gives for the same records and settings
 * (test: zone-tree.test.ts), with records of one rrset possibly in another order.
 */
import { TYPE } from './wire/constants.js';
import type { WireRecord } from './wire/message.js';
import { inZone, type EdgeAddresses, type RRset, type SnapshotRecord, type SnapshotZone, type ZoneSnapshot } from './snapshot.js';
import { deriveNode, soaRecord } from './node-rrsets.js';
import { flattened, type DraftView, type Reads } from './zone-flatten.js';
import { NodesView, TreeNode, type NodeDeriver, type Slot } from './zone-tree-node.js';
import { FlattenReads } from './flatten-reads.js';
import { unpackRecords } from './packed-records.js';
import { ZoneSources } from './zone-sources.js';
import { SlotReaders, type SlotsReader } from './slots-reader.js';
import { soaSerial, ZoneJournal, type JournalEntry } from './zone-journal.js';

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

const NO_RRSETS: Map<number, RRset> = new Map();

/** Names whose rrsets changed (`content`) and names that appeared or disappeared (`exists`, also in `content`). */
interface Seen {
  content: Set<string>;
  exists: Set<string>;
}

/** A zone image patched by changesets (see the module comment). */
export class ZoneTree implements ZoneSnapshot, NodeDeriver {
  /** Versions kept for IXFR by trees made from now on (`--ixfr-history`; 0: none). */
  private static journalVersions = 0;

  /** Sets how many versions new trees keep for IXFR (zone-journal.ts). */
  static setJournalVersions(versions: number): void {
    ZoneTree.journalVersions = versions;
  }

  readonly zoneId: string;
  readonly origin: string;
  /** The recent versions as served differences, for IXFR. */
  readonly journal = new ZoneJournal(ZoneTree.journalVersions, (entry) => this.onJournal?.(this.zoneId, entry));

  /** Told of every journal entry this tree records (the DNS server keeps them, dns-server/journal-store.ts). */
  onJournal: ((zoneId: string, entry: JournalEntry) => void) | undefined;
  serial: number;
  /** Every existing name: its packed records when plain, else its node. */
  private readonly slots = new Map<string, Slot>();
  /** Transfers reading {@link slots} live (slots-reader.ts). */
  private readonly readers = new SlotReaders(this.slots);
  readonly nodes: NodesView;
  readonly cuts = new Set<string>();
  soa!: RRset;
  negativeSoa!: WireRecord;
  /** Every name's stored records, the dormant names' and the records left out (zone-sources.ts). */
  private readonly sources = new ZoneSources(this.slots);
  private readonly proxiedNames = new Set<string>();
  private readonly cnameNames = new Set<string>();
  /** What each flattened CNAME's resolution read, and who read each name (flatten-reads.ts). */
  private readonly flatReads = new FlattenReads();
  private readonly view: DraftView;
  /** The last derivation, reused while the name, its records and the zone fields stay. */
  private memo: { name: string; src: string; zone: SnapshotZone; rrsets: Map<number, RRset> } | undefined;

  constructor(private zone: SnapshotZone, private readonly edge: EdgeAddresses) {
    this.zoneId = zone.id;
    this.origin = zone.name;
    this.serial = zone.serial;
    this.nodes = new NodesView(this.slots, this);
    this.view = {
      origin: this.origin,
      node: (name) => this.nodes.get(name),
      draft: (node, type) => (node instanceof TreeNode ? node.unflattened : node.rrsets).get(type),
    };
    for (const _ of this.settle(new Set([this.origin]), { names: new Set(), wholeZone: false })) { /* one name */ }
  }

  /** The served rrsets of a name without explicit ones, from its packed records. */
  derive(name: string, src: string): Map<number, RRset> {
    if (src === '') return NO_RRSETS;
    const m = this.memo;
    if (m && m.src === src && m.name === name && m.zone === this.zone) return m.rrsets;
    const rrsets = deriveNode(this.zone, name, unpackRecords(src, name, false), this.edge).rrsets;
    this.memo = { name, src, zone: this.zone, rrsets };
    return rrsets;
  }

  /** Records left out, with the reason. */
  get skipped(): Array<{ id: string; reason: string }> {
    return this.sources.skipped();
  }

  /** The zone's DNSSEC state, as the zone fields last gave it. */
  get dnssec(): SnapshotZone['dnssec'] {
    return this.zone.dnssec;
  }

  /** The edge addresses proxied records are served with (fixed for the tree's life). */
  get edgeAddresses(): EdgeAddresses {
    return this.edge;
  }

  /**
   * Every name and its slot as they are now, read in order (slots-reader.ts): live until this tree next
   * changes, when each reader not finished copies what it has left first.
   */
  readSlots(): SlotsReader {
    return this.readers.open();
  }

  /** The zone fields the tree was last given. */
  get zoneFields(): SnapshotZone {
    return this.zone;
  }

  /** Every stored record held (for copying the tree elsewhere, e.g. to a DNS worker). */
  *records(): Iterable<SnapshotRecord> {
    yield* this.sources.records();
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
  applySteps(changes: readonly RecordChange[], serial: number): Generator<void, ChangeReport> {
    return this.readers.guard(this.changeSteps(changes, serial));
  }

  private *changeSteps(changes: readonly RecordChange[], serial: number): Generator<void, ChangeReport> {
    const report: ChangeReport = { names: new Set(), wholeZone: false };
    const touched = new Set<string>();
    let work = 0;
    const journaled = this.journal.on && serial > this.serial ? this.beforeChanges(changes) : undefined;
    for (const c of changes) {
      if (c.before) { this.sources.remove(c.before.name, c.id); touched.add(c.before.name); }
      if (c.after) {
        if (!inZone(c.after.name, this.origin)) { this.sources.skip(c.id, 'outside the zone'); continue; }
        this.sources.put(c.after);
        touched.add(c.after.name);
      }
      if (++work % SLICE === 0) yield;
    }
    yield* this.settle(touched, report);
    this.setSerial(serial, report);
    if (journaled) {
      if (report.wholeZone) this.journal.reset();
      else this.journal.record(journaled.before, report.names, this.origin, (n) => this.nodes.get(n)?.rrsets, journaled.from, { serial: this.journalSerial, soa: this.soa.records[0]! });
    }
    return report;
  }

  /** What the journal needs before a changeset: the served records of every name it can change, and the SOA. */
  private beforeChanges(changes: readonly RecordChange[]): { before: ReturnType<typeof ZoneJournal.capture>; from: { serial: number; soa: WireRecord } } {
    const names = new Set<string>([this.origin, ...this.flatReads.flattenedNames()]);
    for (const c of changes) {
      if (c.before) names.add(c.before.name);
      if (c.after) names.add(c.after.name);
    }
    return { before: ZoneJournal.capture(names, this.origin, (n) => this.nodes.get(n)?.rrsets), from: { serial: this.journalSerial, soa: this.soa.records[0]! } };
  }

  /** The serial IXFR clients know the zone by: the served SOA's (a pre-signed zone serves its signer's). */
  get journalSerial(): number {
    return (this.zone.dnssec?.presigned === true ? soaSerial(this.soa.records[0]) : undefined) ?? this.serial;
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
  setZoneSteps(zone: SnapshotZone): Generator<void, ChangeReport> {
    return this.readers.guard(this.zoneSteps(zone));
  }

  private *zoneSteps(zone: SnapshotZone): Generator<void, ChangeReport> {
    const report: ChangeReport = { names: new Set(), wholeZone: true };
    this.journal.reset();
    this.zone = { ...zone, name: this.origin, id: this.zoneId, serial: this.serial };
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
    if (this.zone.dnssec?.presigned === true && unpackRecords(this.apex().src, this.origin).some((r) => r.type === 'SOA')) return;
    const s = this.zone.settings.soa;
    const set: RRset = { type: TYPE.SOA, ttl: s.ttl, records: [soaRecord(this.zone, s.ttl)] };
    const apex = this.apex();
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
      const slot = this.slots.get(name);
      if (slot instanceof TreeNode && slot.flatten) again.add(name);
    }
    this.flatReads.dependents(seen.content, seen.exists, again);
    for (const name of again) {
      this.reflatten(name, report);
      if (++work % SLICE === 0) yield;
    }
    this.setSoa(this.apex().rrsets.get(TYPE.SOA)!);
  }

  /** The apex node (always a node: it holds its rrsets). */
  private apex(): TreeNode {
    return this.slots.get(this.origin) as TreeNode;
  }

  /** The node of an existing name, made one if it was plain. */
  private promote(name: string): TreeNode | undefined {
    const slot = this.slots.get(name);
    if (typeof slot !== 'string') return slot;
    const node = new TreeNode(name, slot, this);
    this.slots.set(name, node);
    return node;
  }

  /** Keeps a name that needs nothing but its records as its packed records alone. */
  private compact(name: string): void {
    const slot = this.slots.get(name);
    if (slot instanceof TreeNode && slot.plain && name !== this.origin) this.slots.set(name, slot.src);
  }

  /** Derives one name from its records; creates or removes the node (and empty non-terminals above it). */
  private rederive(name: string, report: ChangeReport, seen: Seen): void {
    const src = this.sources.srcOf(name);
    const records = unpackRecords(src, name);
    const d = deriveNode(this.zone, name, records, this.edge);
    this.sources.derived(records, d.skipped);
    this.mark(this.proxiedNames, name, d.proxied);
    this.mark(this.cnameNames, name, d.cname);
    let node = this.promote(name);
    if (!node && !d.exists) return;
    if (!node) {
      node = new TreeNode(name, src, this);
      this.sources.wake(name);
      this.slots.set(name, node);
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
    else this.compact(name);
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
    const node = this.promote(name);
    if (node) { node.kids++; return; }
    const ent = new TreeNode(name, this.sources.wake(name), this);
    ent.kids = 1;
    ent.own = false;
    this.slots.set(name, ent);
    report.names.add(name);
    seen.content.add(name);
    seen.exists.add(name);
    if (name !== this.origin) this.addChild(parent(name), report, seen);
  }

  private dropNode(node: TreeNode, report: ChangeReport, seen: Seen): void {
    this.slots.delete(node.name);
    this.sources.sleep(node.name, node.src);
    this.markCut(node.name, false, report);
    this.flatReads.forget(node.name);
    report.names.add(node.name);
    seen.content.add(node.name);
    seen.exists.add(node.name);
    const up = parent(node.name);
    const p = this.slots.get(up);
    if (!(p instanceof TreeNode) || !inZone(up, this.origin)) return;
    p.kids--;
    if (p.kids === 0 && !p.own && up !== this.origin) this.dropNode(p, report, seen);
    else this.compact(up);
  }

  /** Recomputes the served rrsets of a name with a flattened CNAME (or restores its draft if it has none now). */
  private reflatten(name: string, report: ChangeReport): void {
    this.flatReads.forget(name);
    const node = this.promote(name);
    if (!node) return;
    const draft = node.unflattened;
    node.draft = undefined;
    node.fixed = name === this.origin ? draft : undefined;
    report.names.add(name);
    if (!node.flatten) { this.compact(name); return; }
    const reads: Reads = { content: new Set(), exists: new Set() };
    const served = flattened(this.view, name, draft, node.flatten.ttl, reads);
    this.flatReads.record(name, reads);
    if (served) {
      node.draft = draft;
      node.fixed = served;
    }
  }
}
