/**
 * Keeps secondary zones current with their primaries. Every node runs one loop; a zone is pulled by the node
 * holding its lease (`secondary_dns_incoming.lease_holder` until `lease_expires_ms`, taken with one conditional
 * UPDATE and renewed while the pull runs, as certs/ does for orders), so on a shared PostgreSQL one node pulls a zone at a time and every node
 * serves the copy (its DNS server follows the change log).
 *
 * A pull, when due (`next_refresh_ms`: every `auto_refresh_seconds`, at once after a settings write, a
 * `force_axfr` or a NOTIFY from a primary): the primaries are tried in order; the primary's SOA serial is asked
 * first, and when it moved (or on `force_axfr`, or the first time) the zone is transferred: IXFR from the serial
 * held when the peer has `ixfr_enable` (AXFR when the primary refuses it or fails), else AXFR. The copy is written
 * in one transaction (zones/secondary-copy.ts). Any failure (network, rcode, TSIG) keeps the old copy, records
 * the error and `checked_time`, and retries within a minute (sooner when the refresh period is shorter). A
 * primary whose address the peer policy refuses (peer-address.ts) fails with that reason and is never contacted.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { newId } from '../shared/ids.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { RecordsService } from '../zones/records-service.js';
import { applySecondaryCopy } from '../zones/secondary-copy.js';
import { tsigSealContext } from './account-objects.js';
import { onPullRequest } from './change-signal.js';
import { peerAddressRefusal, type PeerAddressPolicy } from './peer-address.js';
import { primarySerial, transferZone, TransferError, type Primary, type TransferResult } from './transfer-client.js';

/** Timing of the loop (tests shorten it). */
export interface RefreshTiming {
  tickMs: number;
  leaseMs: number;
  /** Longest wait before retrying a failed pull. */
  retryMs: number;
}

/** Defaults of {@link RefreshTiming}. */
export const DEFAULT_REFRESH_TIMING: RefreshTiming = { tickMs: 1000, leaseMs: 120_000, retryMs: 60_000 };

/** True when serial `a` is newer than `b` (RFC 1982). */
export function serialNewer(a: number, b: number): boolean {
  return a !== b && ((a - b) >>> 0) < 0x80000000;
}

interface PrimaryPeer extends Primary { name: string; ixfr: boolean }

/** The refresh loop of this node. */
export class RefreshLoop {
  private readonly holder = newId();
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly records: RecordsService,
    private readonly box: SecretBox | undefined,
    private readonly logger: Logger,
    /** Decides primaries' addresses (`--transfer-peer-allow`): a refused one fails the pull, never contacted. */
    private readonly peerPolicy: PeerAddressPolicy,
    private readonly timing: RefreshTiming = DEFAULT_REFRESH_TIMING,
  ) {
    this.unsubscribe = onPullRequest((zoneId) => void this.pullNow(zoneId));
  }

  /** Starts scanning for due zones. */
  start(): void {
    const tick = async () => {
      try {
        const now = Date.now();
        const due = await this.db.selectFrom('secondary_dns_incoming').select('zone_id')
          .where('next_refresh_ms', '<=', now)
          .where((eb) => eb.or([eb('lease_holder', 'is', null), eb('lease_expires_ms', '<', now), eb('lease_holder', '=', this.holder)]))
          .execute();
        for (const { zone_id: id } of due) if (!this.running.has(id)) void this.pull(id);
      } catch (err) {
        if (!this.closed) this.logger.warn({ err }, 'scanning secondary zones failed');
      }
      if (!this.closed) { this.timer = setTimeout(() => void tick(), this.timing.tickMs); this.timer.unref(); }
    };
    this.timer = setTimeout(() => void tick(), 0);
    this.timer.unref();
  }

  /** A pull requested now (NOTIFY, settings, force_axfr): marked due for every node, pulled here when the lease is free. */
  async pullNow(zoneId: string): Promise<void> {
    if (this.closed) return;
    try {
      await this.db.updateTable('secondary_dns_incoming').set({ next_refresh_ms: 0 }).where('zone_id', '=', zoneId).execute();
    } catch (err) {
      this.logger.warn({ err, zone: zoneId }, 'marking a secondary zone due failed');
      return;
    }
    const running = this.running.get(zoneId);
    if (running) await running; // a pull under way: the next one sees next_refresh_ms 0
    if (!this.running.has(zoneId)) await this.pull(zoneId);
  }

  private pull(zoneId: string): Promise<void> {
    const p = this.pullOnce(zoneId).catch((err: unknown) => {
      if (!this.closed) this.logger.error({ err, zone: zoneId }, 'pulling a secondary zone failed');
    }).finally(() => this.running.delete(zoneId));
    this.running.set(zoneId, p);
    return p;
  }

  private async takeLease(zoneId: string): Promise<boolean> {
    const now = Date.now();
    const res = await this.db.updateTable('secondary_dns_incoming').set({ lease_holder: this.holder, lease_expires_ms: now + this.timing.leaseMs })
      .where('zone_id', '=', zoneId)
      .where((eb) => eb.or([eb('lease_holder', 'is', null), eb('lease_expires_ms', '<', now), eb('lease_holder', '=', this.holder)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  private async primaries(accountId: string, peerIds: string[]): Promise<PrimaryPeer[]> {
    if (peerIds.length === 0) return [];
    const peers = await this.db.selectFrom('secondary_dns_peers').selectAll().where('account_id', '=', accountId).where('id', 'in', peerIds).execute();
    const out: PrimaryPeer[] = [];
    for (const id of peerIds) {
      const p = peers.find((x) => x.id === id);
      if (!p || p.ip === null) continue;
      let key: Primary['key'];
      if (p.tsig_id) {
        const t = await this.db.selectFrom('secondary_dns_tsigs').selectAll().where('id', '=', p.tsig_id).executeTakeFirst();
        if (!t || !this.box) throw new TransferError(`peer ${p.name}: its TSIG key cannot be opened (no secrets key?)`);
        key = { name: t.name, algorithm: t.algo, secret: Buffer.from(this.box.open(t.secret_sealed, tsigSealContext(t.id)), 'base64') };
      }
      out.push({ name: p.name, host: p.ip, port: p.port ?? 53, ixfr: p.ixfr_enable === 1, refuse: (a) => peerAddressRefusal(this.peerPolicy, a), ...(key ? { key } : {}) });
    }
    return out;
  }

  /** One transfer from one primary: IXFR when it may (falling back to AXFR unless TSIG failed), else AXFR. */
  private async fetch(p: PrimaryPeer, zone: string, held: number | undefined): Promise<TransferResult> {
    if (held === undefined || !p.ixfr) return transferZone(p, zone, undefined);
    try {
      return await transferZone(p, zone, held);
    } catch (err) {
      if (err instanceof TransferError && /TSIG/.test(err.message)) throw err;
      this.logger.info({ err, zone, primary: p.name }, 'IXFR failed; trying AXFR');
      return transferZone(p, zone, undefined);
    }
  }

  private async pullOnce(zoneId: string): Promise<void> {
    if (this.closed || !(await this.takeLease(zoneId))) return;
    // Renewed while the pull runs (a big zone's transfer may outlast one lease).
    const renew = setInterval(() => void this.takeLease(zoneId).catch(() => {}), this.timing.leaseMs / 3);
    renew.unref();
    try {
      const row = await this.db.selectFrom('secondary_dns_incoming').selectAll().where('zone_id', '=', zoneId).executeTakeFirst();
      const zone = await this.db.selectFrom('zones').select(['id', 'name', 'type']).where('id', '=', zoneId).executeTakeFirst();
      if (!row || !zone || zone.type !== 'secondary') return;
      const refreshMs = row.auto_refresh_seconds * 1000;
      const held = row.soa_serial === null ? undefined : Number(row.soa_serial);
      const force = row.force_axfr === 1;
      const errors: string[] = [];
      let done: { serial: number; note: string | null; transferred: boolean } | undefined;
      let primaries: PrimaryPeer[] = [];
      try {
        primaries = await this.primaries(row.account_id, JSON.parse(row.peers) as string[]);
        if (primaries.length === 0) errors.push('no primary with an address');
      } catch (err) {
        errors.push((err as Error).message);
      }
      for (const p of primaries) {
        try {
          const serial = await primarySerial(p, zone.name);
          if (!force && held !== undefined && !serialNewer(serial, held)) { done = { serial: held, note: null, transferred: false }; break; }
          const result = await this.fetch(p, zone.name, force ? undefined : held);
          let note: string | null = null;
          if (result.kind !== 'current') {
            const copy = result.kind === 'full' ? { full: result.records } : { deleted: result.deleted, added: result.added };
            const applied = await applySecondaryCopy(this.records, zone, copy);
            const skipped = applied.skippedCount + result.skippedTypes;
            if (skipped > 0) note = `${skipped} record(s) of the primary not served: ${applied.skipped.join('; ') || 'types Stratus does not store'}`;
            this.logger.info({ zone: zone.name, primary: p.name, kind: result.kind, serial: result.serial, added: applied.added, deleted: applied.deleted, skipped }, 'secondary zone transferred');
          }
          done = { serial: result.serial, note, transferred: result.kind !== 'current' };
          break;
        } catch (err) {
          errors.push(`${p.name} (${p.host}:${p.port}): ${(err as Error).message}`);
        }
      }
      const now = Date.now();
      if (done) {
        const at = new Date(now).toISOString();
        const result = { soa_serial: done.serial, checked_time: at, error: done.note, ...(done.transferred ? { last_transferred_time: at } : {}) };
        // A request during the pull (next_refresh_ms written again) keeps the zone due; the result is recorded anyway.
        const res = await this.db.updateTable('secondary_dns_incoming').set({ ...result, force_axfr: 0, next_refresh_ms: now + refreshMs })
          .where('zone_id', '=', zoneId).where('next_refresh_ms', '=', row.next_refresh_ms).executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) await this.db.updateTable('secondary_dns_incoming').set(result).where('zone_id', '=', zoneId).execute();
      } else {
        this.logger.warn({ zone: zone.name, errors }, 'secondary zone not refreshed');
        await this.db.updateTable('secondary_dns_incoming').set({
          checked_time: new Date(now).toISOString(), error: errors.join('; ').slice(0, 1000), next_refresh_ms: now + Math.min(refreshMs, this.timing.retryMs),
        }).where('zone_id', '=', zoneId).execute();
      }
    } finally {
      clearInterval(renew);
      await this.db.updateTable('secondary_dns_incoming').set({ lease_holder: null, lease_expires_ms: 0 })
        .where('zone_id', '=', zoneId).where('lease_holder', '=', this.holder).execute().catch(() => {});
    }
  }

  /** Stops the loop; waits for pulls under way. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([...this.running.values()]);
  }
}
