/**
 * The IXFR journal kept in the database (`zone_journal`, migration 0015), so that an IXFR after a restart is still
 * answered with the condensed differences (dns/zone-journal.ts). Every entry a zone tree records is written here
 * (from the DNS thread through a report, or from this thread), at most `versions` per zone kept; a zone loaded
 * whole is seeded with the chain of kept entries that ends at its serial (zone-cache.ts). Nodes sharing a database write the same
 * entries: the second write of an entry is ignored.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { decodeJournalEntry, encodeJournalEntry, type JournalEntry } from '../dns/zone-journal.js';

/** The journal entries of zones in the database. */
export class JournalStore {
  /** Writes per zone, in order. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly db: Kysely<Database>, private readonly versions: number, private readonly logger: Logger) {}

  /** Writes an entry (in the background) and drops the zone's entries older than the kept versions. */
  save(zoneId: string, entry: JournalEntry): void {
    if (this.versions <= 0) return;
    const prev = this.chains.get(zoneId) ?? Promise.resolve();
    const next = prev.then(async () => {
      await this.db.insertInto('zone_journal').values({ zone_id: zoneId, to_serial: entry.to, from_serial: entry.from, created_ms: Date.now(), body: encodeJournalEntry(entry) })
        .onConflict((oc) => oc.columns(['zone_id', 'to_serial']).doNothing()).execute();
      await this.db.deleteFrom('zone_journal').where('zone_id', '=', zoneId).where('to_serial', '<=', entry.to - this.versions).execute();
    }).catch((err: unknown) => this.logger.warn({ err, zoneId }, 'keeping an IXFR journal entry failed'));
    this.chains.set(zoneId, next);
    void next.finally(() => { if (this.chains.get(zoneId) === next) this.chains.delete(zoneId); });
  }

  /** The kept entries ending at `serial`, oldest first (empty when none reaches it). */
  async load(zoneId: string, serial: number): Promise<JournalEntry[]> {
    if (this.versions <= 0) return [];
    await this.chains.get(zoneId);
    const rows = await this.db.selectFrom('zone_journal').select(['to_serial', 'from_serial', 'body']).where('zone_id', '=', zoneId)
      .where('to_serial', '<=', serial).orderBy('to_serial', 'desc').limit(this.versions).execute();
    const out: JournalEntry[] = [];
    let want = serial;
    for (const r of rows) {
      if (Number(r.to_serial) !== want) break;
      try {
        out.push(decodeJournalEntry(r.body));
      } catch (err) {
        this.logger.warn({ err, zoneId, serial: Number(r.to_serial) }, 'an IXFR journal entry does not read');
        break;
      }
      want = Number(r.from_serial);
    }
    return out.reverse();
  }

  /** Waits for the writes under way. */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }
}
