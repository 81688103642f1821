/**
 * Tells the DNS server of this process at once that secondary DNS settings changed (the API's writes call
 * {@link secondaryDnsChanged}); other nodes see the change through the polled serial (transfer-policy-store.ts).
 * Also the in-process signals between the API, the DNS server and the refresh loop, each one a {@link signal}.
 */

/** One in-process signal: `emit` calls every registered listener (and says whether there was one); `on` returns the removal. */
function signal<A extends unknown[]>(): { emit(...args: A): boolean; on(listener: (...args: A) => void): () => void } {
  const listeners = new Set<(...args: A) => void>();
  return {
    emit(...args) {
      for (const l of listeners) l(...args);
      return listeners.size > 0;
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const changed = signal<[]>();
const notify = signal<[zoneId: string]>();
const pull = signal<[zoneId: string]>();
const transferred = signal<[zoneId: string]>();

/** Called after a committed secondary DNS write. */
export function secondaryDnsChanged(): void {
  changed.emit();
}

/** Registers a listener; returns its removal. */
export const onSecondaryDnsChange = (listener: () => void): (() => void) => changed.on(listener);

/** Asks the DNS server of this process to send NOTIFY for a zone now (`force_notify`); false when none listens. */
export function requestNotify(zoneId: string): boolean {
  return notify.emit(zoneId);
}

/** Registers the DNS server's NOTIFY sender; returns its removal. */
export const onNotifyRequest = (listener: (zoneId: string) => void): (() => void) => notify.on(listener);

/**
 * Asks this process's refresh loop to check a secondary zone now (settings written, `force_axfr`, or a NOTIFY
 * from one of its primaries, reported by the DNS server).
 */
export function requestPull(zoneId: string): void {
  pull.emit(zoneId);
}

/** Registers the refresh loop; returns its removal. */
export const onPullRequest = (listener: (zoneId: string) => void): (() => void) => pull.on(listener);

/** Tells this process that a transfer of a zone with outgoing settings was made to its end (reported by the DNS server). */
export function transferredOut(zoneId: string): void {
  transferred.emit(zoneId);
}

/** Registers the recorder of `last_transferred_time` (outgoing-transfer-times.ts); returns its removal. */
export const onTransferredOut = (listener: (zoneId: string) => void): (() => void) => transferred.on(listener);
