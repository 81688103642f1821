/**
 * The issuance loop: gives every active zone with universal SSL on a universal pack (`zone` and `*.zone`),
 * orders each pack that has no certificate or whose certificate expires within `renewDays` (by the injected
 * clock), and retries a failed order after an exponential backoff (`firstRetryMs` doubling up to
 * `maxRetryMs`, wall time), the failure's reason kept in the pack. A pack is ordered only by the node holding
 * its lease (cert-store.ts), renewed while the order runs. The loop runs every `tickMs` and at once when a zone
 * is created or becomes active on this node (`wake()`); its timers are unref'd. A tick that fails (the database
 * away) waits as shared/retry-delay.ts says before the next. `close()` aborts the orders running (their issuer
 * stops at once and removes its challenge records), waits for them and for a scan running to end, so nothing
 * of the loop touches the database after it resolves.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { RetryDelay } from '../shared/retry-delay.js';
import type { CertificateStore, PackRow } from './cert-store.js';
import type { Issuer } from './issuer.js';

/** Timing of the loop. */
export interface IssuanceTiming {
  /** Renew this many days before expiry. */
  renewDays: number;
  /** Scan every this many ms. */
  tickMs: number;
  /** First wait after a failed order (ms), doubling per failure in a row. */
  firstRetryMs: number;
  /** Longest wait after failures (ms). */
  maxRetryMs: number;
  /** How long a lease holds without renewal (ms). */
  leaseMs: number;
}

/** Default timing. */
export const DEFAULT_TIMING: Omit<IssuanceTiming, 'renewDays'> = { tickMs: 5_000, firstRetryMs: 10_000, maxRetryMs: 3_600_000, leaseMs: 120_000 };

const DAY_MS = 86_400_000;
/** Orders running at once on one node. */
const CONCURRENT_ORDERS = 2;

/** Orders and renews certificate packs. */
export class IssuanceLoop {
  private readonly holder = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private ticking = false;
  private tickRun: Promise<void> | undefined;
  private again = false;
  private readonly stopping = new AbortController();
  private readonly ordering = new Map<string, Promise<void>>();
  private readonly delay = new RetryDelay();

  constructor(private readonly db: Kysely<Database>, private readonly store: CertificateStore, private readonly issuer: Issuer, private readonly clock: Clock,
    private readonly logger: Logger, private readonly timing: IssuanceTiming, private readonly issued: () => Promise<void>) {}

  /** Starts scanning. */
  start(): void {
    this.schedule(0);
  }

  /** Scans now (a zone became active, universal SSL was turned on). */
  wake(): void {
    if (this.closed) return;
    if (this.ticking) { this.again = true; return; }
    this.schedule(this.delay.waitMs());
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.tickRun = this.tick(); }, ms);
    this.timer.unref();
  }

  /** One scan: universal packs for active zones, then orders for what is due. */
  async tick(): Promise<void> {
    if (this.closed || this.ticking) return;
    this.ticking = true;
    try {
      await this.store.pruneDeletedZones();
      await this.ensureUniversalPacks();
      for (const pack of await this.store.allPacks()) {
        if (this.ordering.size >= CONCURRENT_ORDERS) break;
        if (this.closed) break;
        if (!this.ordering.has(pack.id) && (await this.due(pack))) this.order(pack);
      }
      this.delay.succeeded();
    } catch (err) {
      this.delay.failed();
      if (!this.closed) this.logger.warn({ err: (err as Error).message }, 'certificate scan failed');
    } finally {
      this.ticking = false;
      const next = this.again ? this.delay.waitMs() : Math.max(this.timing.tickMs, this.delay.waitMs());
      this.again = false;
      this.schedule(next);
    }
  }

  private async ensureUniversalPacks(): Promise<void> {
    const zones = await this.db.selectFrom('zones').leftJoin('ssl_settings', 'ssl_settings.zone_id', 'zones.id')
      .leftJoin('certificate_packs', (j) => j.onRef('certificate_packs.slot', '=', 'zones.id'))
      .select(['zones.id', 'zones.name']).where('zones.status', '=', 'active')
      .where((eb) => eb.or([eb('ssl_settings.universal_enabled', 'is', null), eb('ssl_settings.universal_enabled', '=', 1)]))
      .where('certificate_packs.id', 'is', null).execute();
    for (const z of zones) {
      await this.store.ensurePack({ zoneId: z.id, slot: z.id, type: 'universal', hosts: [z.name, `*.${z.name}`], authority: this.issuer.authority, validityDays: 90 });
    }
  }

  private async due(pack: PackRow): Promise<boolean> {
    if (Number(pack.next_attempt_ms) > Date.now()) return false;
    if (pack.lease_holder && pack.lease_holder !== this.holder && Number(pack.lease_expires_ms) > Date.now()) return false;
    const zone = await this.db.selectFrom('zones').select('status').where('id', '=', pack.zone_id).executeTakeFirst();
    if (zone?.status !== 'active') return false;
    const certs = (await this.store.packCertificates([pack.id])).get(pack.id) ?? [];
    const latest = Math.max(0, ...certs.map((c) => new Date(c.expires_on).getTime()));
    return latest - this.timing.renewDays * DAY_MS <= this.clock.now().getTime();
  }

  private order(pack: PackRow): void {
    // A failure the order did not record itself (the database closed under it at shutdown) ends here, never as an
    // unhandled rejection.
    const run = this.runOrder(pack)
      .catch((err: unknown) => { if (!this.closed) this.logger.warn({ err, pack: pack.id }, 'certificate order failed'); })
      .finally(() => { this.ordering.delete(pack.id); if (!this.closed) this.wake(); });
    this.ordering.set(pack.id, run);
  }

  private async runOrder(pack: PackRow): Promise<void> {
    if (!(await this.store.takeLease(pack.id, this.holder, Date.now(), this.timing.leaseMs))) return;
    const renew = setInterval(() => void this.store.takeLease(pack.id, this.holder, Date.now(), this.timing.leaseMs).catch(() => {}), this.timing.leaseMs / 3);
    renew.unref();
    const log = this.logger.child({ pack: pack.id, zone: pack.zone_id });
    try {
      const zone = await this.db.selectFrom('zones').select(['id', 'name']).where('id', '=', pack.zone_id).executeTakeFirst();
      if (!zone) return;
      const renewal = pack.status === 'active';
      if (!renewal) await this.store.setStatus(pack.id, 'pending_validation');
      const hosts = JSON.parse(pack.hosts) as string[];
      log.info({ hosts, renewal }, 'ordering certificate');
      const cert = await this.issuer.issue(zone, hosts, this.stopping.signal);
      if (this.closed) return;
      await this.store.issued(pack, cert.chainPem, cert.keyPem);
      log.info({ hosts }, 'certificate issued');
      await this.issued();
    } catch (err) {
      if (this.closed) return;
      const failures = pack.failures + 1;
      const wait = Math.min(this.timing.maxRetryMs, this.timing.firstRetryMs * 2 ** Math.min(failures - 1, 20));
      const reason = (err as Error).message || String(err);
      log.warn({ err: reason, retryInMs: wait }, 'certificate order failed');
      await this.store.failed(pack.id, reason, failures, Date.now() + wait, pack.status === 'active' ? 'active' : 'pending_validation').catch(() => {});
    } finally {
      clearInterval(renew);
      await this.store.releaseLease(pack.id, this.holder).catch(() => {});
    }
  }

  /** Stops scanning, aborts the orders running and waits for them (their leases released) and for a scan running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopping.abort(new Error('the certificate loop is closing'));
    await this.tickRun;
    await Promise.allSettled([...this.ordering.values()]);
  }
}
