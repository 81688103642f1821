/**
 * A zone tree's names and slots as they were when a transfer began, read in order (zone-tree-transfer.ts)
 * without copying the tree's map first: a million-name zone's copy held the transfer's first byte for ~25 ms.
 * While the tree has not changed since, they are read live from its map; the tree calls
 * {@link SlotsReader.copyRest} before it changes anything, and the reader goes on from a copy of what it had
 * not read yet. A slot is a plain name's packed records (a string: replaced, never mutated) or a node (mutated
 * in place: its `src` and `fixed` are what the copy keeps).
 */
import type { RRset } from './snapshot.js';
import type { Slot } from './zone-tree-node.js';

/** A slot as a transfer keeps it: packed records, or a node's records and explicit rrsets. */
export type FrozenSlot = string | { readonly src: string; readonly fixed: Map<number, RRset> | undefined };

function frozen(slot: Slot): FrozenSlot {
  return typeof slot === 'string' ? slot : { src: slot.src, fixed: slot.fixed };
}

/** One version of a tree's names and slots, read once in order (see the module comment). */
export class SlotsReader {
  /** The name read by the last {@link advance}. */
  name = '';
  /** Its slot; a live node is read as it is now, so read its fields before anything else runs. */
  slot: FrozenSlot = '';
  /** Entries not read yet. */
  remaining: number;
  private keys: MapIterator<string> | undefined;
  private values: MapIterator<Slot> | undefined;
  private rest: { names: string[]; slots: FrozenSlot[]; at: number } | undefined;
  private read = 0;

  /** Reads `map` live from now; `release` is called once the reader needs the tree no more. */
  constructor(map: Map<string, Slot>, private readonly release: (reader: SlotsReader) => void) {
    this.keys = map.keys();
    this.values = map.values();
    this.remaining = map.size;
  }

  /** Reads the next entry into {@link name} and {@link slot}; false after the last. */
  advance(): boolean {
    if (this.remaining === 0) return false;
    this.remaining--;
    this.read++;
    const rest = this.rest;
    if (rest) {
      this.name = rest.names[rest.at]!;
      this.slot = rest.slots[rest.at++]!;
    } else {
      this.name = this.keys!.next().value!;
      this.slot = this.values!.next().value!;
    }
    if (this.remaining === 0) this.finish();
    return true;
  }

  /** Copies what is not read yet, before the tree changes (the tree then forgets this reader). */
  copyRest(): void {
    if (this.rest || !this.keys || !this.values) return;
    const names = new Array<string>(this.remaining);
    const slots = new Array<FrozenSlot>(this.remaining);
    for (let i = 0; i < names.length; i++) {
      names[i] = this.keys.next().value!;
      slots[i] = frozen(this.values.next().value!);
    }
    this.rest = { names, slots, at: 0 };
    this.keys = undefined;
    this.values = undefined;
  }

  /** Every entry, for reads by index; only before any {@link advance}. The reader is used up. */
  takeAll(): { names: string[]; slots: FrozenSlot[] } {
    if (this.read > 0) throw new Error('a transfer read in order cannot be read by index');
    this.copyRest();
    const { names, slots } = this.rest!;
    this.remaining = 0;
    this.finish();
    return { names, slots };
  }

  private finish(): void {
    this.keys = undefined;
    this.values = undefined;
    this.rest = undefined;
    this.release(this);
  }
}

/** The readers of one tree's slots: each copies what it has left before the tree changes anything. */
export class SlotReaders {
  private readonly live = new Set<SlotsReader>();

  /** `slots` is the tree's map of names (the tree changes it only in the steps given to {@link guard}). */
  constructor(private readonly slots: Map<string, Slot>) {}

  /** A reader of every name and slot as they are now. */
  open(): SlotsReader {
    const reader = new SlotsReader(this.slots, (r) => this.live.delete(r));
    if (reader.remaining > 0) this.live.add(reader);
    return reader;
  }

  /** `steps` (a change of the tree), with every open reader's copy made before each step (one may open between two). */
  *guard<T>(steps: Generator<void, T>): Generator<void, T> {
    for (;;) {
      this.copyForReaders();
      const r = steps.next();
      if (r.done) return r.value;
      yield;
    }
  }

  private copyForReaders(): void {
    if (this.live.size === 0) return;
    for (const r of this.live) r.copyRest();
    this.live.clear();
  }
}
