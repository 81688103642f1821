/**
 * The names of a {@link ZoneTree}, kept small for big zones: a plain name (records of its own, no children, not
 * flattened, not the apex: nearly every name of a big zone) is only its packed records (packed-records.ts) in
 * the tree's map of names; the others are {@link TreeNode}s. Neither holds served rrsets: they are derived from
 * the records when read (zone-node.ts, a few microseconds, and answers are cached by the packet cache); the apex
 * and flattened CNAMEs, whose rrsets are not a function of their own records alone, hold theirs explicitly.
 * {@link NodesView} shows both kinds as the `ZoneNode`s of a `ZoneSnapshot`.
 */
import type { RRset, ZoneNode } from './snapshot.js';
import type { FlattenSpec } from './node-rrsets.js';

/** Derives a name's served rrsets from its packed records (the tree it belongs to). */
export interface NodeDeriver {
  derive(name: string, src: string): Map<number, RRset>;
}

/** A name that is not plain: its packed records and what else it needs (children, flattening, explicit rrsets). */
export class TreeNode implements ZoneNode {
  /** Existing child names (a name with children exists even without records: an empty non-terminal). */
  kids = 0;
  /** True when the node's own records make it exist. */
  own = true;
  /** Served rrsets held explicitly (the apex, flattened names); other nodes derive them from `src`. */
  fixed: Map<number, RRset> | undefined = undefined;
  /** The unflattened rrsets of a flattened name. */
  draft: Map<number, RRset> | undefined = undefined;
  flatten: FlattenSpec | undefined = undefined;

  constructor(readonly name: string, public src: string, private readonly deriver: NodeDeriver) {}

  /** The served rrsets. */
  get rrsets(): Map<number, RRset> {
    return this.fixed ?? this.deriver.derive(this.name, this.src);
  }

  /** The rrsets before CNAME flattening. */
  get unflattened(): Map<number, RRset> {
    return this.draft ?? this.rrsets;
  }

  /** True when nothing but its records sets it apart (it can be kept as its packed records alone). */
  get plain(): boolean {
    return this.kids === 0 && this.own && !this.fixed && !this.draft && !this.flatten;
  }
}

/** A plain name as a `ZoneNode` (made when read; the tree keeps only the packed records). */
class PlainNode implements ZoneNode {
  constructor(readonly name: string, private readonly src: string, private readonly deriver: NodeDeriver) {}

  get rrsets(): Map<number, RRset> {
    return this.deriver.derive(this.name, this.src);
  }
}

/** What the tree keeps per name: the packed records of a plain name, or a node. */
export type Slot = string | TreeNode;

/** The names of a tree as a read-only map of `ZoneNode`s. */
export class NodesView implements ReadonlyMap<string, ZoneNode> {
  constructor(private readonly slots: ReadonlyMap<string, Slot>, private readonly deriver: NodeDeriver) {}

  private node(name: string, slot: Slot): ZoneNode {
    return typeof slot === 'string' ? new PlainNode(name, slot, this.deriver) : slot;
  }

  get(name: string): ZoneNode | undefined {
    const slot = this.slots.get(name);
    return slot === undefined ? undefined : this.node(name, slot);
  }

  has(name: string): boolean {
    return this.slots.has(name);
  }

  get size(): number {
    return this.slots.size;
  }

  keys(): MapIterator<string> {
    return this.slots.keys();
  }

  *values(): MapIterator<ZoneNode> {
    for (const [name, slot] of this.slots) yield this.node(name, slot);
  }

  *entries(): MapIterator<[string, ZoneNode]> {
    for (const [name, slot] of this.slots) yield [name, this.node(name, slot)];
  }

  [Symbol.iterator](): MapIterator<[string, ZoneNode]> {
    return this.entries();
  }

  forEach(fn: (value: ZoneNode, key: string, map: ReadonlyMap<string, ZoneNode>) => void): void {
    for (const [name, slot] of this.slots) fn(this.node(name, slot), name, this);
  }
}
