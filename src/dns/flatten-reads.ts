/**
 * The flattening bookkeeping of a {@link ZoneTree}: for every flattened CNAME, the names its resolution read
 * (their rrsets, or only whether they exist: zone-flatten.ts), and the reverse indexes that tell, when names
 * change, which flattened names must be resolved again.
 */
import type { Reads } from './zone-flatten.js';

/** Which flattened names read which names (see the module comment). */
export class FlattenReads {
  /** Flattened name -> the names its resolution read. */
  private readonly reads = new Map<string, { content: string[]; exists: string[] }>();
  /** Name -> the flattened names that read its rrsets. */
  private readonly readers = new Map<string, Set<string>>();
  /** Name -> the flattened names that checked only whether it exists. */
  private readonly probers = new Map<string, Set<string>>();

  /** The flattened names (every name whose resolution is recorded). */
  flattenedNames(): Iterable<string> {
    return this.reads.keys();
  }

  /** Records what the resolution of `name` read (replacing what it read before). */
  record(name: string, reads: Reads): void {
    this.forget(name);
    const kept = { content: [...reads.content], exists: [...reads.exists] };
    this.reads.set(name, kept);
    link(this.readers, kept.content, name);
    link(this.probers, kept.exists, name);
  }

  /** Forgets what a flattened name read. */
  forget(name: string): void {
    const kept = this.reads.get(name);
    if (!kept) return;
    unlink(this.readers, kept.content, name);
    unlink(this.probers, kept.exists, name);
    this.reads.delete(name);
  }

  /** Adds to `into` the flattened names that read the rrsets of `changed` or the existence of `appeared`. */
  dependents(changed: Iterable<string>, appeared: Iterable<string>, into: Set<string>): void {
    for (const name of changed) {
      const readers = this.readers.get(name);
      if (readers) for (const r of readers) into.add(r);
    }
    for (const name of appeared) {
      const probers = this.probers.get(name);
      if (probers) for (const r of probers) into.add(r);
    }
  }
}

/** Adds `reader` to the index entry of every name. */
function link(index: Map<string, Set<string>>, names: readonly string[], reader: string): void {
  for (const n of names) {
    let set = index.get(n);
    if (!set) { set = new Set(); index.set(n, set); }
    set.add(reader);
  }
}

/** Removes `reader` from the index entry of every name. */
function unlink(index: Map<string, Set<string>>, names: readonly string[], reader: string): void {
  for (const n of names) {
    const set = index.get(n);
    set?.delete(reader);
    if (set?.size === 0) index.delete(n);
  }
}
