/**
 * Where a {@link ZoneTree} keeps each name's stored records (packed, packed-records.ts): in the name's slot
 * while the name exists (its packed string, or its node's `src`), else among the dormant names (all of their
 * records fail to encode, so the name is not served). Also the records left out of the served zone, by id, with
 * the reason.
 */
import type { SnapshotRecord } from './snapshot.js';
import { TreeNode, type Slot } from './zone-tree-node.js';
import { unpackRecords, withoutRecord, withRecord } from './packed-records.js';

/** The stored records of a zone's names, existing or dormant (see the module comment). */
export class ZoneSources {
  /** Records not served, by id, with the reason. */
  private readonly skippedById = new Map<string, string>();
  /** Packed records of names that do not exist (all their records fail to encode). */
  private readonly dormant = new Map<string, string>();

  /** `slots` is the tree's map of existing names (shared: the tree adds and removes names). */
  constructor(private readonly slots: Map<string, Slot>) {}

  /** The packed records of a name ('' for none). */
  srcOf(name: string): string {
    const slot = this.slots.get(name);
    if (slot === undefined) return this.dormant.get(name) ?? '';
    return typeof slot === 'string' ? slot : slot.src;
  }

  /** Replaces the packed records of a name, where it keeps them. */
  setSrc(name: string, src: string): void {
    const slot = this.slots.get(name);
    if (slot instanceof TreeNode) slot.src = src;
    else if (slot !== undefined) this.slots.set(name, src);
    else if (src !== '') this.dormant.set(name, src);
    else this.dormant.delete(name);
  }

  /** Removes a record by id (nothing when the name does not hold it). */
  remove(name: string, id: string): void {
    const src = this.srcOf(name);
    const next = withoutRecord(src, id);
    if (next === src) return;
    this.setSrc(name, next);
    this.skippedById.delete(id);
  }

  /** Stores a record (replacing the one with its id). */
  put(record: SnapshotRecord): void {
    this.setSrc(record.name, withRecord(withoutRecord(this.srcOf(record.name), record.id), record));
    this.skippedById.delete(record.id);
  }

  /** The dormant records of a name, taken out because the name now exists and holds them ('' for none). */
  wake(name: string): string {
    const src = this.dormant.get(name) ?? '';
    this.dormant.delete(name);
    return src;
  }

  /** Keeps the records of a name that stops existing. */
  sleep(name: string, src: string): void {
    if (src !== '') this.dormant.set(name, src);
  }

  /** Records a record left out of the served zone. */
  skip(id: string, reason: string): void {
    this.skippedById.set(id, reason);
  }

  /** After a name is derived again: its records are served but the `skipped` ones. */
  derived(records: readonly SnapshotRecord[], skipped: ReadonlyArray<{ id: string; reason: string }>): void {
    // Settings may have made a record servable again (a paused zone's proxied records are encoded, others not).
    if (this.skippedById.size) for (const r of records) this.skippedById.delete(r.id);
    for (const s of skipped) this.skippedById.set(s.id, s.reason);
  }

  /** Records left out, with the reason. */
  skipped(): Array<{ id: string; reason: string }> {
    return [...this.skippedById].map(([id, reason]) => ({ id, reason }));
  }

  /** Every stored record, of existing and dormant names. */
  *records(): Iterable<SnapshotRecord> {
    for (const [name, slot] of this.slots) yield* unpackRecords(typeof slot === 'string' ? slot : slot.src, name);
    for (const [name, src] of this.dormant) yield* unpackRecords(src, name);
  }
}
