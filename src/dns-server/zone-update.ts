/** The changes of the served zones the zone cache emits and the DNS thread replays. Types only. */
import type { EdgeAddresses, SnapshotZone } from '../dns/snapshot-types.js';
import type { RecordChange } from '../dns/zone-tree.js';
import type { JournalEntry } from '../dns/zone-journal.js';

/**
 * A change of the served image, as the DNS thread replays it. `stage` and the `staged` changes build a zone's
 * new tree aside while it is loaded (mirrors, zone-mirror.ts); `reset` swaps the staged tree in, or starts an
 * empty one that the records following it fill.
 */
export type ZoneUpdate =
  | { t: 'reset'; zone: SnapshotZone; edge: EdgeAddresses }
  | { t: 'stage'; zone: SnapshotZone; edge: EdgeAddresses }
  | { t: 'changes'; zoneId: string; serial: number; records: RecordChange[]; staged?: true }
  | { t: 'zone'; zone: SnapshotZone; staged?: true }
  /** The kept IXFR history of a zone just loaded, ending at `serial` (journal-store.ts). */
  | { t: 'journal'; zoneId: string; serial: number; entries: JournalEntry[] }
  | { t: 'remove'; zoneId: string };
