/**
 * The zone policies of a set of hostnames known ahead (the names nginx ends TLS for, `runtime/tls-front.ts`), kept
 * true at a cost that grows with what changed, not with how many names are served. The active zones' ids, names
 * and serials are listed in one query (no settings text); each hostname's zone is found in memory, as
 * `ZonePolicies.forHost` finds it (the longest active zone name that is a suffix of it); a zone's settings are
 * read only when its policy is not held yet, its serial moved, or a notice named it.
 *
 * A notice that zones came, went or changed status (`zonesMoved`) lists the zones again; so does
 * {@link ZonePolicyIndex.relist}, which the owner calls now and then for changes on other nodes (a listing that
 * finds a moved serial re-reads only that zone). A zone found missing or inactive while its settings are read
 * lists the zones again at once.
 */
import type { ActiveZone, PolicyChange, ZonePolicies, ZonePolicy } from './zone-policy.js';

/** What the index reads zones with (`ZonePolicies`). */
export type ZonePolicyReader = Pick<ZonePolicies, 'activeZones' | 'readPolicies'>;

/** Most zones marked changed and not read yet (zones without served names); past it every zone is read again. */
const STALE_BOUND = 10_000;

/** The policies of hostnames, from an in-memory index of the active zones. */
export class ZonePolicyIndex {
  private byName = new Map<string, ActiveZone>();
  private listed = false;
  private readonly held = new Map<string, { serial: number; policy: ZonePolicy }>();
  private readonly stale = new Set<string>();

  constructor(private readonly reader: ZonePolicyReader) {}

  /** Takes a notice: the zones it names are read again; zones that came or went list the zones again. */
  changed(change: PolicyChange): void {
    for (const id of change.zones) this.stale.add(id);
    if (change.zonesMoved) this.listed = false;
  }

  /** The next {@link resolve} lists the zones again (and re-reads the zones whose serial moved). */
  relist(): void {
    this.listed = false;
  }

  /** The policy of each of `hosts` (lowercase; `*.x` as a name one label under x); undefined when no active zone holds it. */
  async resolve(hosts: readonly string[]): Promise<Map<string, ZonePolicy | undefined>> {
    for (let attempt = 0; ; attempt++) {
      if (!this.listed) await this.list();
      const zoneOf = new Map(hosts.map((h) => [h, this.zoneOf(h.startsWith('*.') ? `x${h.slice(1)}` : h)]));
      const wanted = new Map([...zoneOf.values()].flatMap((z) => (z ? [[z.id, z] as const] : [])));
      const toRead = [...wanted.values()].filter((z) => this.stale.has(z.id) || this.held.get(z.id)?.serial !== z.serial).map((z) => z.id);
      for (const id of toRead) this.stale.delete(id);
      const rows = toRead.length > 0 ? await this.reader.readPolicies(toRead) : [];
      for (const r of rows) {
        this.held.set(r.id, { serial: r.serial, policy: r.policy });
        wanted.get(r.id)!.serial = r.serial; // read after the listing: the newer serial
      }
      // a zone deleted or no longer active since the listing: its names may belong to another zone now
      if ((rows.length !== toRead.length || rows.some((r) => r.status !== 'active')) && attempt === 0) {
        this.listed = false;
        continue;
      }
      // held only for the zones of these hosts: another zone is read when a host of it comes
      for (const id of [...this.held.keys()]) if (!wanted.has(id)) this.held.delete(id);
      // marks of zones no host is in stay (a notice may come while this runs); past a bound, every zone is read again
      if (this.stale.size > STALE_BOUND) { this.stale.clear(); this.held.clear(); }
      return new Map([...zoneOf].map(([h, z]) => [h, z ? this.held.get(z.id)?.policy : undefined]));
    }
  }

  private async list(): Promise<void> {
    this.listed = true;
    this.byName = new Map((await this.reader.activeZones()).map((z) => [z.name.toLowerCase(), z]));
  }

  /** The active zone holding `host`: the longest zone name that is a suffix of it. */
  private zoneOf(host: string): ActiveZone | undefined {
    for (let at = 0; ; ) {
      const zone = this.byName.get(host.slice(at));
      if (zone) return zone;
      const dot = host.indexOf('.', at);
      if (dot < 0) return undefined;
      at = dot + 1;
    }
  }
}
