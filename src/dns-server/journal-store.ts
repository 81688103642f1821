/**
 * The IXFR journal kept in the database (`zone_journal`, migration 0015), so that an IXFR after a restart is still
 * answered with the condensed differences (dns/zone-journal.ts). Every entry a zone tree records is written here
 * (from the DNS thread through a report, or from this thread), gathered for 100 ms and written in one
 * transaction, at most `versions` per zone kept; a zone loaded
 * whole is seeded with the chain of kept entries that ends at its serial (zone-cache.ts). Nodes sharing a database write the same
 * entries: the second write of an entry is ignored.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { decodeJournalEntry, encodeJournalEntry, type JournalEntry } from '../dns/zone-journal.js';

/** Entries written per statement. */
const ROWS_PER_INSERT = 100;

/** The journal entries of zones in the database. */
export class JournalStore {
  private pending: Array<{ zoneId: string; entry: JournalEntry }> = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  /**
   * `delayMs`: entries are gathered this long and written in one transaction (a busy zone's writes cost the
   * database one statement per gathering, not one per change).
   */
  constructor(private readonly db: Kysely<Database>, private readonly versions: number, private readonly logger: Logger, private readonly delayMs = 100) {}

  /** Queues an entry; it is written within `delayMs`, and the zone's entries older than the kept versions dropped. */
  save(zoneId: string, entry: JournalEntry): void {
    if (this.versions <= 0) return;
    this.pending.push({ zoneId, entry });
    if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = undefined; void this.write(); }, this.delayMs);
      this.timer.unref();
    }
  }

  private write(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return this.writing;
    this.writing = this.writing.then(async () => {
      const newest = new Map<string, number>();
      for (const { zoneId, entry } of batch) newest.set(zoneId, Math.max(newest.get(zoneId) ?? 0, entry.to));
      await this.db.transaction().execute(async (trx) => {
        for (let i = 0; i < batch.length; i += ROWS_PER_INSERT) {
          await trx.insertInto('zone_journal').values(batch.slice(i, i + ROWS_PER_INSERT).map(({ zoneId, entry }) => ({
            zone_id: zoneId, to_serial: entry.to, from_serial: entry.from, created_ms: Date.now(), body: encodeJournalEntry(entry),
          }))).onConflict((oc) => oc.columns(['zone_id', 'to_serial']).doNothing()).execute();
        }
        for (const [zoneId, to] of newest) await trx.deleteFrom('zone_journal').where('zone_id', '=', zoneId).where('to_serial', '<=', to - this.versions).execute();
      });
    }).catch((err: unknown) => this.logger.warn({ err, entries: batch.length }, 'keeping IXFR journal entries failed'));
    return this.writing;
  }

  /** The kept entries ending at `serial`, oldest first (empty when none reaches it). */
  async load(zoneId: string, serial: number): Promise<JournalEntry[]> {
    if (this.versions <= 0) return [];
    await this.flush();
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

  /** Writes what is queued and waits for it. */
  async flush(): Promise<void> {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    await this.write();
  }
}
