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
