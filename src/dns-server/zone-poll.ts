/**
 * The serial poll's rule: which served zones a node catches up from the database (other nodes' writes).
 *
 * A serial read while this node's own write transaction is open (or committed, not yet published) is ahead of
 * the tree for a moment: a zone is caught up only when a serial seen one poll earlier is still ahead of it (the
 * feed would have brought it by then), so this node's writes never queue the zone and hold its queries. Other
 * nodes' writes are followed one poll later. A served zone without a tree is loaded at once.
 */

/** What one poll decided. */
export interface PollDecision {
  /** Zones to catch up (or load) now. */
  changed: string[];
  /** Zones whose database serial is ahead of their tree for the first time: checked again next poll. */
  ahead: Map<string, number>;
}

/**
 * Decides from the served zones' database serials (`rows`), the serial each zone's tree has (`treeSerial`,
 * undefined without a tree), the zones with work queued (skipped) and the previous poll's `aheadSeen`.
 */
export function decidePoll(
  rows: ReadonlyArray<{ id: string; serial: number }>,
  treeSerial: (zoneId: string) => number | undefined,
  queued: (zoneId: string) => boolean,
  aheadSeen: ReadonlyMap<string, number>,
): PollDecision {
  const changed: string[] = [];
  const ahead = new Map<string, number>();
  for (const r of rows) {
    if (queued(r.id)) continue;
    const serial = treeSerial(r.id);
    if (serial === undefined) { changed.push(r.id); continue; }
    if (serial >= r.serial) continue;
    const before = aheadSeen.get(r.id);
    if (before !== undefined && serial < before) changed.push(r.id);
    else ahead.set(r.id, r.serial);
  }
  return { changed, ahead };
}
