/**
 * What this process knows about its backing stores: is the database reachable, is the S3 blob store answering,
 * is the local disk accepting writes. Adapters report every fault (`down`) and every success after one (`up`);
 * each outage is one incident in the log (opened, counted, closed with its duration). A readiness endpoint
 * reads {@link HealthState.snapshot}; nothing else depends on it, so a wrong guess never refuses work.
 */
import type { Logger } from './logger.js';
import { IncidentLog } from './incident-log.js';
import type { FaultComponent } from './faults.js';
import { recordBackendFault } from './probes.js';

/** The state of one component. */
export interface ComponentHealth {
  up: boolean;
  /** Epoch ms of the last change of `up` (or of the start). */
  since: number;
  /** Faults counted in the current outage (0 while up). */
  failures: number;
  /** Message of the latest fault of the current outage. */
  lastError?: string;
}

const MESSAGES: Record<FaultComponent, string> = {
  database: 'database unreachable; answering 503 until it is back',
  'blob-store': 'S3 blob store unreachable or failing; object bodies cannot be read or written until it is back',
  disk: 'disk full; writes are refused until space is freed, reads keep working',
};

/** Default of how long a component must stay up before its incident is logged as over. */
const RECOVERY_CONFIRM_MS = 1000;

/** Reachability of the database, the blob store and the disk, fed by the adapters. */
export class HealthState {
  private readonly incidents: IncidentLog;
  private readonly state = new Map<FaultComponent, { up: boolean; since: number }>();
  private readonly now: () => number;
  /** How long a component must stay up before its incident is logged as over (a flapping link is one incident). */
  private readonly confirmMs: number;
  private readonly confirming = new Map<FaultComponent, NodeJS.Timeout>();

  constructor(logger: Logger, opts: { now?: () => number; summaryEveryMs?: number; confirmMs?: number } = {}) {
    this.now = opts.now ?? Date.now;
    this.confirmMs = opts.confirmMs ?? RECOVERY_CONFIRM_MS;
    this.incidents = new IncidentLog(logger.child({ component: 'health' }), { now: this.now, quietMs: Number.POSITIVE_INFINITY, ...(opts.summaryEveryMs !== undefined ? { summaryEveryMs: opts.summaryEveryMs } : {}) });
  }

  /** Reports a fault of `component` (logged once per outage, then counted). */
  down(component: FaultComponent, err: unknown): void {
    recordBackendFault(component);
    const pending = this.confirming.get(component);
    if (pending) { clearTimeout(pending); this.confirming.delete(component); }
    const s = this.state.get(component);
    if (!s || s.up) this.state.set(component, { up: false, since: this.now() });
    this.incidents.failure(component, err, MESSAGES[component]);
  }

  /**
   * Reports a success of `component`; ends its outage if there was one, unless the operation started
   * (`startedAt`, epoch ms) before the outage did. Cheap when already up.
   */
  up(component: FaultComponent, startedAt?: number): void {
    const s = this.state.get(component);
    if (!s || s.up) return;
    if (startedAt !== undefined && startedAt < s.since) return;
    this.state.set(component, { up: true, since: this.now() });
    if (this.confirmMs <= 0) { this.incidents.recovered(component); return; }
    // Up at once for readiness; the incident is over only if no fault follows within confirmMs.
    const timer = setTimeout(() => { this.confirming.delete(component); this.incidents.recovered(component); }, this.confirmMs);
    timer.unref();
    this.confirming.set(component, timer);
  }

  /** True unless the latest report about `component` was a fault. */
  isUp(component: FaultComponent): boolean {
    return this.state.get(component)?.up ?? true;
  }

  /** Every component that has been reported on, for a readiness endpoint. */
  snapshot(): Partial<Record<FaultComponent, ComponentHealth>> {
    const open = new Map(this.incidents.list().map((i) => [i.kind, i]));
    const out: Partial<Record<FaultComponent, ComponentHealth>> = {};
    for (const [component, s] of this.state) {
      const inc = open.get(component);
      out[component] = { up: s.up, since: s.since, failures: s.up ? 0 : inc?.count ?? 0, ...(!s.up && inc ? { lastError: inc.lastError } : {}) };
    }
    return out;
  }
}
