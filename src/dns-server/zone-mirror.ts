/**
 * What the zone cache needs of a zone it keeps (`ZoneImage`), and `ZoneMirror`, the image the main thread
 * keeps when the DNS thread answers every query (udp-workers.ts): the zone's fields and serial only, so the
 * zone's records are held once, in the DNS thread's tree, and not a second time here. A mirror being loaded
 * sends what it is given to the thread as it comes (a `stage` update, then staged changes: the thread builds the
 * new tree aside and swaps it in at the cache's `reset`), so a load never holds a whole zone on the main
 * thread either. Once the cache serves it, the cache's own updates carry its changes.
 */
import type { ChangeReport, RecordChange, ZoneTree } from '../dns/zone-tree.js';
import { soaRecord } from '../dns/node-rrsets.js';
import { TYPE } from '../dns/wire/constants.js';
import type { WireRecord } from '../dns/wire/message.js';
import type { EdgeAddresses, RRset, SnapshotRecord, SnapshotZone, ZoneNode, ZoneSnapshot } from '../dns/snapshot.js';
import type { ZoneUpdate } from './zone-update.js';

/** The zone cache's view of a zone it keeps: a full tree (ZoneTree) or a mirror. */
export type ZoneImage = ZoneSnapshot & Pick<ZoneTree, 'zoneFields' | 'records' | 'apply' | 'applySteps' | 'setZone' | 'setZoneSteps'> & {
  /** Called when the cache starts serving the image (a mirror stops staging). */
  live?(): void;
  /** True when the image holds no records (a mirror): its loads went out as staged updates already. */
  readonly streamed?: boolean;
};

/** Makes the image of a zone being loaded. */
export type ImageFactory = (zone: SnapshotZone, edge: EdgeAddresses) => ZoneImage;

const NO_NODES: ReadonlyMap<string, ZoneNode> = new Map();
const NO_CUTS: ReadonlySet<string> = new Set();
const WHOLE: () => ChangeReport = () => ({ names: new Set(), wholeZone: true });

/** A zone's fields and serial, its records held by the DNS thread (see the module comment). */
export class ZoneMirror implements ZoneSnapshot {
  readonly zoneId: string;
  readonly origin: string;
  readonly nodes = NO_NODES;
  readonly cuts = NO_CUTS;
  readonly skipped: Array<{ id: string; reason: string }> = [];
  readonly streamed = true;
  private staging = true;

  constructor(private zone: SnapshotZone, private readonly edge: EdgeAddresses, private readonly emit: (u: ZoneUpdate) => void) {
    this.zoneId = zone.id;
    this.origin = zone.name;
    emit({ t: 'stage', zone, edge });
  }

  get serial(): number {
    return this.zone.serial;
  }

  get zoneFields(): SnapshotZone {
    return this.zone;
  }

  /** The apex SOA rrset (for NOTIFY). */
  get soa(): RRset {
    const s = this.zone.settings.soa;
    return { type: TYPE.SOA, ttl: s.ttl, records: [soaRecord(this.zone, s.ttl)] };
  }

  get negativeSoa(): WireRecord {
    const s = this.zone.settings.soa;
    return soaRecord(this.zone, Math.min(s.ttl, s.minTtl));
  }

  live(): void {
    this.staging = false;
  }

  *records(): Iterable<SnapshotRecord> { /* held by the DNS thread */ }

  apply(changes: readonly RecordChange[], serial: number): ChangeReport {
    if (this.staging) {
      for (let i = 0; i === 0 || i < changes.length; i += 1000) {
        this.emit({ t: 'changes', zoneId: this.zoneId, serial, records: changes.slice(i, i + 1000), staged: true });
      }
    }
    if (serial > this.zone.serial) this.zone = { ...this.zone, serial };
    return WHOLE();
  }

  // eslint-disable-next-line require-yield
  *applySteps(changes: readonly RecordChange[], serial: number): Generator<void, ChangeReport> {
    return this.apply(changes, serial);
  }

  setZone(zone: SnapshotZone): ChangeReport {
    const serial = Math.max(zone.serial, this.zone.serial);
    this.zone = { ...zone, name: this.origin, id: this.zoneId, serial };
    if (this.staging) this.emit({ t: 'zone', zone: this.zone, staged: true });
    return WHOLE();
  }

  // eslint-disable-next-line require-yield
  *setZoneSteps(zone: SnapshotZone): Generator<void, ChangeReport> {
    return this.setZone(zone);
  }
}

/** The factory of mirrors sending their staged updates to `emit`. */
export function mirrorFactory(emit: (u: ZoneUpdate) => void): ImageFactory {
  return (zone, edge) => new ZoneMirror(zone, edge, emit);
}
