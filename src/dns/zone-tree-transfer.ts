/**
 * A zone tree's served rrsets as they are NOW, readable later in slices while the tree keeps changing: what a
 * zone transfer (AXFR, RFC 5936 §2.2: one version of the zone) needs without deriving and encoding every
 * record of a big zone at once. Freezing reads the tree's names and slots live until the tree next changes, and
 * from a copy of the rest after (slots-reader.ts: a node's `src` and `fixed` copied, as nodes change in place);
 * it relies on the tree replacing, never mutating, a name's packed records (`src`, a string), its explicit
 * rrsets (`fixed`; the apex SOA is the one exception, which transfers take from the frozen SOA), its SOA RRset
 * and its zone fields, so the references taken keep describing this version. Names are re-derived from them
 * (zone-node.ts) with this version's zone fields when read.
 */
import type { RRset, SnapshotZone, ZoneNode, ZoneSnapshot } from './snapshot.js';
import type { WireRecord } from './wire/message.js';
import { TYPE } from './wire/constants.js';
import { deriveNode } from './node-rrsets.js';
import { unpackRecords } from './packed-records.js';
import { readPlainRecords, type PlainRecords } from './packed-wire.js';
import type { ZoneTree } from './zone-tree.js';
import type { FrozenSlot, SlotsReader } from './slots-reader.js';

/** Where a transfer's records are written: as records, or a plain name's in wire form (packed-wire.ts). */
export interface TransferSink {
  add(r: WireRecord): void;
  /**
   * The records of a plain name, owned by `name`, which is `origin` (the zone's name) or ends with `.` + `origin`
   * (a zone tree holds no other names: zone-tree.ts skips them).
   */
  addPlain(name: string, origin: string, records: PlainRecords): void;
}

const NO_RRSETS: Map<number, RRset> = new Map();

/** One version of a tree's names, read in slices. */
export class FrozenZone {
  readonly soa: WireRecord;
  private readonly zone: SnapshotZone;
  private readonly edge: ZoneTree['edgeAddresses'];
  private readonly image: Pick<ZoneSnapshot, 'zoneId' | 'origin' | 'serial' | 'soa' | 'negativeSoa'>;
  private readonly cuts: ReadonlySet<string>;
  /** The names and slots of this version, read in order by {@link writeNext}. */
  private readonly reader: SlotsReader;
  /** The same, copied whole for reads by index ({@link snapshot}), instead. */
  private whole: { names: string[]; slots: FrozenSlot[] } | undefined;

  constructor(tree: ZoneTree) {
    this.soa = tree.soa.records[0]!;
    this.zone = tree.zoneFields;
    this.edge = tree.edgeAddresses;
    this.image = { zoneId: tree.zoneId, origin: tree.origin, serial: tree.serial, soa: tree.soa, negativeSoa: tree.negativeSoa };
    this.cuts = new Set(tree.cuts);
    this.reader = tree.readSlots();
  }

  /** Names not read by {@link writeNext} yet. */
  get remaining(): number {
    return this.reader.remaining;
  }

  /** Every name, in order (for reads by index: the version is copied whole, and {@link writeNext} is not used). */
  get names(): string[] {
    return this.all().names;
  }

  private all(): { names: string[]; slots: FrozenSlot[] } {
    this.whole ??= this.reader.takeAll();
    return this.whole;
  }

  /** The served rrsets of the i-th name. */
  rrsetsAt(i: number): Map<number, RRset> {
    const { names, slots } = this.all();
    return this.rrsetsOf(names[i]!, slots[i]!);
  }

  /** The served rrsets of `name` from its slot. */
  private rrsetsOf(name: string, slot: FrozenSlot): Map<number, RRset> {
    const src = typeof slot === 'string' ? slot : slot.src;
    return (typeof slot === 'string' ? undefined : slot.fixed) ?? (src !== '' ? deriveNode(this.zone, name, unpackRecords(src, name, false), this.edge).rrsets : NO_RRSETS);
  }

  /**
   * Writes the records of the next `count` names to `sink` in transfer order (the apex SOA left out): a plain
   * name's straight from its packed records (packed-wire.ts), any other as {@link rrsetsOf} derives it. Each
   * slot is read at once (a node read live is this version only until the tree next changes).
   */
  writeNext(count: number, sink: TransferSink): void {
    const reader = this.reader;
    for (let k = 0; k < count && reader.advance(); k++) {
      const name = reader.name;
      const slot = reader.slot;
      const src = typeof slot === 'string' ? slot : slot.fixed === undefined ? slot.src : '';
      if (src !== '' && name !== this.zone.name) {
        const plain = readPlainRecords(src);
        if (plain) { sink.addPlain(name, this.zone.name, plain); continue; }
      }
      for (const set of this.rrsetsOf(name, slot).values()) {
        if (set.type === TYPE.SOA && name === this.zone.name) continue;
        for (const r of set.records) sink.add(r);
      }
    }
  }

  /** This version as a snapshot (for signing a transfer): its nodes derived when read, never all at once. */
  snapshot(): ZoneSnapshot {
    return { ...this.image, nodes: new FrozenNodes(this), cuts: this.cuts, skipped: [], dnssec: this.zone.dnssec };
  }
}

/** The names of a {@link FrozenZone} as a read-only map; a node's rrsets are derived on each read. */
class FrozenNodes implements ReadonlyMap<string, ZoneNode> {
  private index: Map<string, number> | undefined;

  constructor(private readonly z: FrozenZone) {}

  get size(): number {
    return this.z.names.length;
  }

  private at(i: number): ZoneNode {
    const z = this.z;
    return { name: z.names[i]!, get rrsets() { return z.rrsetsAt(i); } };
  }

  private position(name: string): number | undefined {
    this.index ??= new Map(this.z.names.map((n, i) => [n, i]));
    return this.index.get(name);
  }

  get(name: string): ZoneNode | undefined {
    const i = this.position(name);
    return i === undefined ? undefined : this.at(i);
  }

  has(name: string): boolean {
    return this.position(name) !== undefined;
  }

  *keys(): MapIterator<string> {
    yield* this.z.names;
  }

  *values(): MapIterator<ZoneNode> {
    for (let i = 0; i < this.z.names.length; i++) yield this.at(i);
  }

  *entries(): MapIterator<[string, ZoneNode]> {
    for (let i = 0; i < this.z.names.length; i++) yield [this.z.names[i]!, this.at(i)];
  }

  [Symbol.iterator](): MapIterator<[string, ZoneNode]> {
    return this.entries();
  }

  forEach(fn: (value: ZoneNode, key: string, map: ReadonlyMap<string, ZoneNode>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}
