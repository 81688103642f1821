/**
 * Tells the DNS server of this process at once that secondary DNS settings changed (the API's writes call
 * {@link secondaryDnsChanged}); other nodes see the change through the polled serial (transfer-policy-store.ts).
 */
const listeners = new Set<() => void>();

/** Called after a committed secondary DNS write. */
export function secondaryDnsChanged(): void {
  for (const l of listeners) l();
}

/** Registers a listener; returns its removal. */
export function onSecondaryDnsChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const notifyListeners = new Set<(zoneId: string) => void>();

/** Asks the DNS server of this process to send NOTIFY for a zone now (`force_notify`); false when none listens. */
export function requestNotify(zoneId: string): boolean {
  for (const l of notifyListeners) l(zoneId);
  return notifyListeners.size > 0;
}

/** Registers the DNS server's NOTIFY sender; returns its removal. */
export function onNotifyRequest(listener: (zoneId: string) => void): () => void {
  notifyListeners.add(listener);
  return () => notifyListeners.delete(listener);
}

const pullListeners = new Set<(zoneId: string) => void>();

/**
 * Asks this process's refresh loop to check a secondary zone now (settings written, `force_axfr`, or a NOTIFY
 * from one of its primaries, reported by the DNS server).
 */
export function requestPull(zoneId: string): void {
  for (const l of pullListeners) l(zoneId);
}

/** Registers the refresh loop; returns its removal. */
export function onPullRequest(listener: (zoneId: string) => void): () => void {
  pullListeners.add(listener);
  return () => pullListeners.delete(listener);
}

const transferListeners = new Set<(zoneId: string) => void>();

/** Tells this process that a transfer of a zone with outgoing settings was made to its end (reported by the DNS server). */
export function transferredOut(zoneId: string): void {
  for (const l of transferListeners) l(zoneId);
}

/** Registers the recorder of `last_transferred_time` (outgoing-transfer-times.ts); returns its removal. */
export function onTransferredOut(listener: (zoneId: string) => void): () => void {
  transferListeners.add(listener);
  return () => transferListeners.delete(listener);
}
