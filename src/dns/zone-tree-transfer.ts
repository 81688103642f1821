/**
 * A zone tree's served rrsets as they are NOW, readable later in slices while the tree keeps changing: what a
 * zone transfer (AXFR, RFC 5936 §2.2: one version of the zone) needs without deriving and encoding every
 * record of a big zone at once. Freezing costs three references per name; it relies on the tree replacing,
 * never mutating, a node's record array (`src`), its explicit rrsets (`fixed`, except the apex SOA, which the
 * transfer takes from the frozen SOA) and its zone fields, so the references taken keep describing this
 * version. Names are re-derived from them (zone-node.ts) with the zone fields of this version.
 */
import type { RRset, SnapshotRecord, SnapshotZone } from './snapshot.js';
import type { WireRecord } from './wire/message.js';
import { TYPE } from './wire/constants.js';
import { deriveNode } from './zone-node.js';
import type { ZoneTree } from './zone-tree.js';

/** One version of a tree's names, read in slices. */
export class FrozenZone {
  readonly soa: WireRecord;
  private readonly zone: SnapshotZone;
  private readonly edge: ZoneTree['edgeAddresses'];
  private readonly names: string[] = [];
  private readonly srcs: SnapshotRecord[][] = [];
  private readonly fixeds: (Map<number, RRset> | undefined)[] = [];
  private next = 0;

  constructor(tree: ZoneTree) {
    this.soa = tree.soa.records[0]!;
    this.zone = tree.zoneFields;
    this.edge = tree.edgeAddresses;
    for (const node of tree.nodes.values()) {
      this.names.push(node.name);
      this.srcs.push(node.src);
      this.fixeds.push(node.fixed);
    }
  }

  /** Names not read yet. */
  get remaining(): number {
    return this.names.length - this.next;
  }

  /** The records of the next `count` names in transfer order (the apex SOA left out), or fewer at the end. */
  take(count: number): WireRecord[] {
    const out: WireRecord[] = [];
    const end = Math.min(this.names.length, this.next + count);
    for (; this.next < end; this.next++) {
      const name = this.names[this.next]!;
      const rrsets = this.fixeds[this.next] ?? (this.srcs[this.next]!.length ? deriveNode(this.zone, name, this.srcs[this.next]!, this.edge).rrsets : undefined);
      if (!rrsets) continue;
      for (const set of rrsets.values()) {
        if (set.type === TYPE.SOA && name === this.zone.name) continue;
        for (const r of set.records) out.push(r);
      }
    }
    return out;
  }
}
