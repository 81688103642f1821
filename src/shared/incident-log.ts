/**
 * Logs failures once per incident instead of once per request. The first failure of a kind opens an incident
 * and is logged (warn, with the error); later failures of that kind are only counted, with a summary line at
 * most every `summaryEveryMs` while it lasts. The incident closes when the caller reports recovery, or when
 * no failure of that kind came for `quietMs` (the next failure then logs the closed incident's summary and opens
 * a new one). Closing logs the count and the duration once.
 *
 * Used by every error handler that keeps the process alive: a database that is away for a minute under load
 * is a handful of log lines, not one per request.
 */
import type { Logger } from './logger.js';

/** What is known of an open incident. */
export interface Incident {
  kind: string;
  /** Epoch ms of the first failure. */
  since: number;
  /** Epoch ms of the latest failure. */
  last: number;
  /** Failures counted so far. */
  count: number;
  /** Message of the latest failure. */
  lastError: string;
}

/** Options of {@link IncidentLog}. */
export interface IncidentLogOptions {
  /** Longest gap between two log lines of one open incident (default 60 s). */
  summaryEveryMs?: number;
  /** An incident without failures for this long is over (default 60 s). */
  quietMs?: number;
  /** Epoch ms now (tests). */
  now?: () => number;
}

interface OpenIncident extends Incident {
  loggedAt: number;
  loggedCount: number;
}

/** Incidents by kind, logged once each with a count. */
export class IncidentLog {
  private readonly open = new Map<string, OpenIncident>();
  private readonly summaryEveryMs: number;
  private readonly quietMs: number;
  private readonly now: () => number;
  private sweptAt = 0;

  constructor(private readonly logger: Logger, opts: IncidentLogOptions = {}) {
    this.summaryEveryMs = opts.summaryEveryMs ?? 60_000;
    this.quietMs = opts.quietMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Counts one failure of `kind`; logs it only when it opens an incident (or a summary is due). */
  failure(kind: string, err: unknown, message = `${kind}: failing`): void {
    const now = this.now();
    this.sweep(now);
    const lastError = err instanceof Error ? err.message : String(err);
    let inc = this.open.get(kind);
    if (inc && now - inc.last > this.quietMs) {
      this.close(inc, 'incident over (no failures for a while)');
      inc = undefined;
    }
    if (!inc) {
      inc = { kind, since: now, last: now, count: 1, lastError, loggedAt: now, loggedCount: 1 };
      this.open.set(kind, inc);
      this.logger.warn({ err, incident: kind }, `${message} (incident opened; further failures are counted)`);
      return;
    }
    inc.count++;
    inc.last = now;
    inc.lastError = lastError;
    if (now - inc.loggedAt >= this.summaryEveryMs) {
      this.logger.warn({ incident: kind, failures: inc.count, newFailures: inc.count - inc.loggedCount, forMs: now - inc.since, lastError }, `${kind}: still failing`);
      inc.loggedAt = now;
      inc.loggedCount = inc.count;
    }
  }

  /** Closes the incident of `kind`, if one is open, logging its count and duration. */
  recovered(kind: string): void {
    const inc = this.open.get(kind);
    if (inc) this.close(inc, 'recovered');
  }

  /** True while an incident of `kind` is open. */
  isOpen(kind: string): boolean {
    return this.open.has(kind);
  }

  /** The open incidents. */
  list(): Incident[] {
    return [...this.open.values()].map(({ kind, since, last, count, lastError }) => ({ kind, since, last, count, lastError }));
  }

  /** Closes incidents quiet for `quietMs` (at most once per `quietMs`), so that one-off kinds do not pile up. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.quietMs) return;
    this.sweptAt = now;
    for (const inc of [...this.open.values()]) if (now - inc.last > this.quietMs) this.close(inc, 'incident over (no failures for a while)');
  }

  private close(inc: OpenIncident, how: string): void {
    this.open.delete(inc.kind);
    this.logger.info({ incident: inc.kind, failures: inc.count, forMs: this.now() - inc.since, lastError: inc.lastError }, `${inc.kind}: ${how}`);
  }
}
