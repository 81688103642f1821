/**
 * Readiness for `/readyz`: is this process able to serve? Each check probes its part (the database with a
 * query, the blob store with a request, the DNS server's zone snapshots, the schema's migrations) when asked,
 * within a deadline, so that an orchestrator's probe gets an answer in time even when a store hangs. A probe
 * still running when the next request comes is not started again (a stalled database must not collect one
 * stuck query per probe): the part stays failing, "still waiting", until it answers. Besides, the process is
 * not ready while it starts and once it stops (so a load balancer drains it first).
 */

/** The outcome of one part. */
export interface PartStatus {
  ok: boolean;
  /** Why it fails, or what it found (`12 zones`). */
  detail?: string;
}

/** A probe: the status of the parts it covers, by name. */
export type Probe = () => Promise<Record<string, PartStatus>>;

/** What `/readyz` answers. */
export interface ReadinessReport {
  ready: boolean;
  /** `starting`, `serving` or `stopping`. */
  phase: Phase;
  /** Parts that fail (empty when ready). */
  failing: string[];
  checks: Record<string, PartStatus>;
}

type Phase = 'starting' | 'serving' | 'stopping';

interface Entry {
  parts: string[];
  probe: Probe;
  running?: Promise<Record<string, PartStatus>>;
  startedAt: number;
}

/** Default deadline of one evaluation (ms): below the 1 s default timeout of Kubernetes probes. */
export const READINESS_DEADLINE_MS = 800;

/** The readiness of one Stratus process. */
export class Readiness {
  private phase: Phase = 'starting';
  private readonly entries: Entry[] = [];

  constructor(private readonly deadlineMs = READINESS_DEADLINE_MS) {}

  /** Adds a probe covering `parts`. */
  add(parts: string[], probe: Probe): void {
    this.entries.push({ parts, probe, startedAt: 0 });
  }

  /** Every listener is up. */
  serving(): void {
    if (this.phase === 'starting') this.phase = 'serving';
  }

  /** The process is shutting down: never ready again. */
  stopping(): void {
    this.phase = 'stopping';
  }

  /** Runs every probe (or waits for the one still running) and reports. */
  async evaluate(): Promise<ReadinessReport> {
    const checks: Record<string, PartStatus> = {};
    await Promise.all(this.entries.map(async (e) => Object.assign(checks, await this.run(e))));
    const failing = Object.keys(checks).filter((k) => !checks[k]!.ok);
    if (this.phase !== 'serving') failing.unshift(this.phase);
    return { ready: failing.length === 0, phase: this.phase, failing, checks };
  }

  private async run(e: Entry): Promise<Record<string, PartStatus>> {
    const now = Date.now();
    const waiting = e.running !== undefined;
    if (!e.running) {
      e.startedAt = now;
      const running = e.probe().catch((err: unknown) => failAll(e.parts, describe(err)));
      e.running = running;
      void running.finally(() => { if (e.running === running) e.running = undefined; });
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Record<string, PartStatus>>((resolve) => {
      timer = setTimeout(() => resolve(failAll(e.parts, waiting
        ? `still waiting for a probe started ${Math.round((Date.now() - e.startedAt) / 100) / 10} s ago`
        : `no answer within ${this.deadlineMs} ms`)), this.deadlineMs);
    });
    try {
      return await Promise.race([e.running, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function failAll(parts: string[], detail: string): Record<string, PartStatus> {
  return Object.fromEntries(parts.map((p) => [p, { ok: false, detail }]));
}

/** The first line of an error's message, kept short (it goes to an operator, but never needs to be long). */
export function describe(err: unknown): string {
  const msg = err instanceof Error ? err.message || err.name : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${msg}${cause}`.split('\n')[0]!.slice(0, 300);
}
