/**
 * Bringing a zone tree up to the database: a full load (at start, for a new zone, or after a gap the change
 * log cannot fill) and catching up through the change log. Both run in slices of a few milliseconds
 * ({@link drive}), so a zone of a million records never holds the event loop (that also serves the v4 API)
 * for longer than a slice.
 *
 * A load reads the zone's fields (serial S), then its records page by page while writes go on, then replays
 * the change log after S: changes are idempotent (zone-tree.ts), so records read in a page after a later
 * change end up as that change left them.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import type { EdgeAddresses } from '../dns/snapshot.js';
import type { ChangeReport } from '../dns/zone-tree.js';
import type { ImageFactory, ZoneImage } from './zone-mirror.js';
import { readChanges, type LoggedChange } from '../zones/change-log.js';
import { readRecordPage, readZone, zoneFields } from './zone-source.js';
import { zoneChallengeRecords } from '../certs/challenges.js';

/** Longest run of tree work between two event-loop turns (ms). */
export const SLICE_MS = 4;

/** Runs a stepwise computation in slices of about {@link SLICE_MS}, yielding to the event loop between them. */
export async function drive<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const end = performance.now() + SLICE_MS;
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() >= end) break;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Applies one logged (or published) change to a tree, in slices. */
export function applyChange(tree: ZoneImage, change: LoggedChange): Promise<ChangeReport> {
  if (change.zone) return drive(tree.setZoneSteps(zoneFields(tree.zoneId, tree.origin, change.serial, change.zone)));
  return drive(tree.applySteps(change.records ?? [], change.serial));
}

/** The outcome of {@link catchUp}: done, or a gap only a load can fill. */
export type CatchUp = 'current' | 'reload';

/** Replays the change log onto `tree` up to `serial`; 'reload' when an entry is missing or marks a reload. */
export async function catchUp(db: Kysely<Database>, tree: ZoneImage, serial: number, applied: (change: LoggedChange, report: ChangeReport) => void): Promise<CatchUp> {
  if (serial <= tree.serial) return 'current';
  const changes = await readChanges(db, tree.zoneId, tree.serial, serial);
  if (!changes || changes.some((c) => c.reload)) return 'reload';
  for (const change of changes) {
    if (change.serial <= tree.serial) continue;
    applied(change, await applyChange(tree, change));
  }
  return 'current';
}

/** Loads a zone into a new image (`image` makes it: a tree or a mirror); undefined when the zone is not served (gone). */
export async function loadZone(db: Kysely<Database>, zoneId: string, edge: EdgeAddresses, logger: Logger, image: ImageFactory): Promise<ZoneImage | undefined> {
  for (let attempt = 1; ; attempt++) {
    const zone = await readZone(db, zoneId);
    if (!zone) return undefined;
    const tree = image(zone, edge);
    let after = '';
    for (;;) {
      const page = await readRecordPage(db, zoneId, after, (id, err) => logger.warn({ err, id }, 'unreadable record row'));
      if (page.last === undefined) break;
      after = page.last;
      await drive(tree.applySteps(page.records.map((r) => ({ id: r.id, before: null, after: r })), zone.serial));
    }
    // DNS-01 challenge values (certs/challenges.ts) are served with the records without being records
    const challenges = await zoneChallengeRecords(db, zoneId);
    if (challenges.length > 0) await drive(tree.applySteps(challenges.map((r) => ({ id: r.id, before: null, after: r })), zone.serial));
    const now = await readZone(db, zoneId);
    if (!now) return undefined;
    if ((await catchUp(db, tree, now.serial, () => {})) === 'current' || attempt >= 3) {
      if (tree.serial < now.serial) logger.warn({ zoneId, serial: tree.serial, want: now.serial }, 'zone loaded while the change log had gaps; the next poll catches up');
      for (const s of tree.skipped) logger.warn({ zoneId, recordId: s.id, reason: s.reason }, 'record not served');
      return tree;
    }
  }
}
