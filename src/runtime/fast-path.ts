/**
 * The edge's fast path (`--edge-fast-path on`, nginx front only; docs/runtime.md, "Design"): nginx forwards a
 * script's request straight to its version's own socket in the account's live generation, with the routing
 * compiled into its configuration (`front/fast-routes.ts`), so no supervisor worker runs for it.
 *
 * This keeps what is compiled true:
 * - the hostnames: learned from the catalog's answers to the supervisors (a hostname whose requests ran a
 *   script), each with its routes (`EdgeCatalog.hostRoutes`, a few database reads per hostname past the
 *   catalog's one-second cache). On a catalog change only the hostnames of the zones it touched are read again
 *   (`EdgeCatalog.routeChanges`: the zones whose routes or routed scripts' deployments changed; every hostname
 *   when the change was elsewhere, or the catalog cannot tell); every {@link REFRESH_MS} all of them are (a DNS
 *   record changed on this node tells no catalog listener; the supervisor's route cache keeps an answer as long);
 * - the versions: each slot's live generation's version sockets, compiled again whenever a slot's live
 *   generation changes;
 * - a replaced generation is stopped only after nginx reloaded without its sockets (`beforeRetire`), so a
 *   deploy never leaves nginx sending to a socket nobody accepts on; a generation that dies leaves them
 *   refusing, and nginx's backup server for each version is its slot's socket (the supervisor, the slow path).
 */
import type { EdgeCatalog, HostRoutePlan } from '../edge/types.js';
import type { Logger } from '../shared/logger.js';
import { fastRoutesConfig, type FastVersion } from './front/fast-routes.js';
import type { NginxFront } from './front/nginx-front.js';
import type { RuntimeSlot } from './runtime-slot.js';

/**
 * How often the learned hostnames' routes are read again without a change notice (ms): as long as the
 * supervisor keeps a route answer without one (its cache), the bound for what notifies no catalog listener.
 */
export const REFRESH_MS = 30_000;
/** Most hostnames compiled (past it, the first learned are forgotten and go the slow path). */
const MAX_HOSTS = 10_000;

/** What the fast path needs of the edge runtime. */
export interface FastPathDeps {
  catalog: EdgeCatalog & { hostRoutes(host: string): Promise<HostRoutePlan | undefined> };
  nginx: NginxFront;
  slots: () => Iterable<RuntimeSlot>;
  slotSocketPath: (index: number) => string;
  /** Makes the version's account runtime serve it (a new generation when its live one lacks it). */
  ensure: (versionId: string) => Promise<unknown>;
  logger: Logger;
}

/** How long a hostname's new routes wait for their versions to be live before they are compiled anyway (ms). */
const PENDING_MS = 5_000;

/** The fast path's compiled state. */
export class FastPath {
  private readonly hosts = new Map<string, HostRoutePlan>();
  /** New routes of a compiled hostname whose versions are being started: the old ones serve meanwhile (one nginx reload per deploy). */
  private readonly pending = new Map<string, { plan: HostRoutePlan; since: number }>();
  private readonly learning = new Set<string>();
  private refreshing: Promise<void> | undefined;
  private again = false;
  /** A refresh of every hostname was asked for while one ran. */
  private againAll = false;
  /** Where the catalog's route changes were last read up to (`EdgeCatalog.routeChanges`). */
  private cursor: string | undefined;

  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly d: FastPathDeps) {
    this.timer = setInterval(() => void this.refresh(true), REFRESH_MS);
    this.timer.unref();
  }

  /** A hostname whose request ran a script: its routes are compiled from now on. */
  learn(host: string): void {
    if (this.closed || this.hosts.has(host) || this.learning.has(host)) return;
    this.learning.add(host);
    void this.d.catalog.hostRoutes(host).then((plan) => {
      if (!plan || this.closed) return;
      if (this.hosts.size >= MAX_HOSTS) this.hosts.delete(this.hosts.keys().next().value!);
      this.hosts.set(host, plan);
      this.compile();
    }, (err: unknown) => this.d.logger.warn({ err, host }, 'fast path: cannot read the routes of a hostname'))
      .finally(() => this.learning.delete(host));
  }

  /**
   * Reads the learned hostnames' routes again after a catalog change: those of the zones it touched, or all of
   * them (`everything`, or when the catalog cannot tell). One run at a time; asks made meanwhile are coalesced.
   */
  refresh(everything = false): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      this.againAll ||= everything;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      let all = everything;
      do {
        this.again = false;
        this.againAll = false;
        const hosts = await this.touched(all);
        all = false;
        for (const host of hosts) {
          if (this.closed) return;
          try {
            const plan = await this.d.catalog.hostRoutes(host);
            if (!plan) this.hosts.delete(host);
            else this.adopt(host, plan);
          } catch (err) {
            this.hosts.delete(host); // unknown now: the slow path serves it until learned again
            this.d.logger.warn({ err, host }, 'fast path: cannot read the routes of a hostname');
          }
        }
        this.compile();
        all = this.againAll;
      } while (this.again && !this.closed);
    })().finally(() => { this.refreshing = undefined; });
    return this.refreshing;
  }

  /** The learned hostnames whose routes may have changed since the last read (every one with `all`). */
  private async touched(all: boolean): Promise<string[]> {
    let zones: ReadonlySet<string> | 'all' = 'all';
    try {
      const changes = await this.d.catalog.routeChanges?.(this.cursor);
      if (changes) {
        this.cursor = changes.cursor;
        zones = changes.zones;
      }
    } catch (err) {
      this.d.logger.warn({ err }, 'fast path: cannot read what the catalog changed; reading every hostname again');
    }
    const hosts = [...this.hosts];
    if (all || zones === 'all') return hosts.map(([h]) => h);
    return hosts.filter(([, plan]) => plan.zoneId === undefined || zones.has(plan.zoneId)).map(([h]) => h);
  }

  /**
   * Takes a hostname's routes read again: at once when their versions are live (or nothing was compiled for the
   * hostname); else the versions are started and the compiled routes stay until they are live (or
   * {@link PENDING_MS} passed), so a deploy changes nginx's configuration once, to the new version's socket.
   */
  private adopt(host: string, plan: HostRoutePlan): void {
    const slots = [...this.d.slots()];
    const missing = plan.policy || plan.passThrough ? []
      : [...new Set(plan.routes.flatMap((r) => r.versions.map((v) => v.versionId)))].filter((v) => !slots.some((s) => s.serves(v)));
    if (missing.length === 0 || !this.hosts.has(host)) {
      this.hosts.set(host, plan);
      this.pending.delete(host);
      return;
    }
    const since = this.pending.get(host)?.since ?? Date.now();
    this.pending.set(host, { plan, since });
    for (const v of missing) void this.d.ensure(v).catch(() => undefined);
  }

  /** The live versions' sockets, by version (each slot's live generation). */
  private versions(): Map<string, FastVersion> {
    const out = new Map<string, FastVersion>();
    for (const slot of this.d.slots()) {
      for (const [v, t] of slot.fastTargets()) out.set(v, { accountId: t.accountId, sockets: t.sockets, slotSocket: this.d.slotSocketPath(slot.index) });
    }
    return out;
  }

  /** Compiles the routes with the live versions into nginx's configuration (reloaded within 100 ms when it changed). */
  compile(): void {
    if (this.closed) return;
    if (this.pending.size > 0) {
      const slots = [...this.d.slots()];
      for (const [host, p] of this.pending) {
        const ready = p.plan.routes.every((r) => r.versions.every((v) => slots.some((s) => s.serves(v.versionId))));
        if (ready || Date.now() - p.since > PENDING_MS) {
          this.hosts.set(host, p.plan);
          this.pending.delete(host);
        }
      }
    }
    this.d.nginx.setFast(fastRoutesConfig({ hosts: this.hosts, versions: this.versions() }));
  }

  /** Before a replaced generation stops: nginx reloaded without its sockets, its new workers running. */
  async beforeRetire(): Promise<void> {
    if (this.closed) return;
    this.compile();
    await this.d.nginx.reloadNow();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }
}
