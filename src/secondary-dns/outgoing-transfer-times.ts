/**
 * Records `last_transferred_time` of zones with outgoing settings (production's field of
 * `GET …/secondary_dns/outgoing`): the DNS server reports every transfer that reached its end (a TCP transfer's
 * last message taken by the connection, dns-server/listeners.ts; an IXFR answered over UDP, handler.ts;
 * {@link transferredOut}), and the time is written to the zone's `secondary_dns_outgoing` row. Writes are
 * gathered: one per zone at a time, the latest time written after one under way.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { onTransferredOut } from './change-signal.js';

/** Records transfer times until the returned stop (which waits for writes under way) is called. */
export function recordOutgoingTransfers(db: Kysely<Database>, logger: Logger, now: () => Date = () => new Date()): () => Promise<void> {
  const writing = new Map<string, Promise<void>>();
  /** The time of a transfer reported while its zone's write was under way (written next). */
  const later = new Map<string, string>();
  let stopped = false;
  const write = (zoneId: string, at: string): void => {
    const done = db.updateTable('secondary_dns_outgoing').set({ last_transferred_time: at }).where('zone_id', '=', zoneId).execute()
      .then(() => {}, (err: unknown) => { if (!stopped) logger.warn({ err, zone: zoneId }, 'last_transferred_time not recorded'); })
      .finally(() => {
        writing.delete(zoneId);
        const next = later.get(zoneId);
        later.delete(zoneId);
        if (next !== undefined && !stopped) write(zoneId, next);
      });
    writing.set(zoneId, done);
  };
  const unsubscribe = onTransferredOut((zoneId) => {
    if (stopped) return;
    // The time the transfer ended, whenever the write happens.
    const at = now().toISOString();
    if (writing.has(zoneId)) later.set(zoneId, at);
    else write(zoneId, at);
  });
  return async () => {
    unsubscribe();
    while (writing.size) await Promise.all([...writing.values()]);
    stopped = true;
  };
}
