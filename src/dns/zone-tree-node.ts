/**
 * One name of a {@link ZoneTree}. To keep a big zone small in memory, most nodes hold only their stored
 * records and derive their served rrsets when read (zone-node.ts, a few microseconds, and answers are cached
 * by the packet cache); the apex and flattened CNAMEs, whose rrsets are not a function of their own records
 * alone, hold them explicitly.
 */
import type { RRset, SnapshotRecord, ZoneNode } from './snapshot.js';
import type { FlattenSpec } from './zone-node.js';

/** Derives a node's rrsets from its records (the tree it belongs to). */
export interface NodeDeriver {
  derive(node: TreeNode): Map<number, RRset>;
}

/** A name of the tree: its stored records and, when they cannot be derived alone, its served rrsets. */
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

  constructor(readonly name: string, public src: SnapshotRecord[], private readonly deriver: NodeDeriver) {}

  /** The served rrsets. */
  get rrsets(): Map<number, RRset> {
    return this.fixed ?? this.deriver.derive(this);
  }

  /** The rrsets before CNAME flattening. */
  get unflattened(): Map<number, RRset> {
    return this.draft ?? this.rrsets;
  }
}

/** Adds `reader` to the index entry of every name. */
export function link(index: Map<string, Set<string>>, names: readonly string[], reader: string): void {
  for (const n of names) {
    let set = index.get(n);
    if (!set) { set = new Set(); index.set(n, set); }
    set.add(reader);
  }
}

/** Removes `reader` from the index entry of every name. */
export function unlink(index: Map<string, Set<string>>, names: readonly string[], reader: string): void {
  for (const n of names) {
    const set = index.get(n);
    set?.delete(reader);
    if (set?.size === 0) index.delete(n);
  }
}
