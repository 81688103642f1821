/**
 * Which zone serial every live DNS node serves, so an ACME order tells the CA to check a DNS-01 challenge only
 * once every node answers it (a CA queries whichever node its resolver picks).
 *
 * Each node beats every `heartbeatMs` (`dns_nodes`, migration 0016) and, for every zone with a challenge being
 * validated (`acme_challenges`), records the serial its own DNS serves for it (`dns_node_zone_serials`). A node
 * is live while its heartbeat is younger than `liveMs`; a node that stops deletes its heartbeat, one that died
 * drops out after `liveMs`. {@link ServingNodes.waitServed} returns when every live node serves at least the
 * challenge's serial, or throws after `timeoutMs` naming the nodes that did not.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Timing of the heartbeat and the wait. */
export interface ServingNodesTiming {
  /** Beat (and record served serials) every this many ms. */
  heartbeatMs: number;
  /** A node whose heartbeat is older than this is not live (ms). */
  liveMs: number;
  /** Longest wait for every live node to serve a challenge (ms). */
  timeoutMs: number;
}

/** Default timing. */
export const SERVING_TIMING: ServingNodesTiming = { heartbeatMs: 1_000, liveMs: 10_000, timeoutMs: 60_000 };

/** Rows of nodes gone for longer than this are deleted. */
const FORGET_MS = 3_600_000;
/** How often the wait reads the table (ms). */
const WAIT_POLL_MS = 250;

/** This node's heartbeat and served serials, and the wait for every live node. */
export class ServingNodes {
  /** This process's node id. */
  readonly nodeId = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly db: Kysely<Database>, private readonly servedSerial: (zoneId: string) => number | undefined,
    private readonly timing: ServingNodesTiming = SERVING_TIMING, private readonly onError: (err: unknown) => void = () => {}) {}

  /** Beats now and every `heartbeatMs`. */
  start(): void {
    const tick = (): void => {
      if (this.closed) return;
      void this.beat().catch(this.onError).finally(() => {
        if (this.closed) return;
        this.timer = setTimeout(tick, this.timing.heartbeatMs);
        this.timer.unref();
      });
    };
    tick();
  }

  /** Records this node's heartbeat and the serials it serves for zones with a challenge (one beat at a time). */
  beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => { this.beating = undefined; });
    return this.beating;
  }

  private async beatOnce(): Promise<void> {
    const now = Date.now();
    await this.db.insertInto('dns_nodes').values({ node_id: this.nodeId, heartbeat_ms: now })
      .onConflict((oc) => oc.column('node_id').doUpdateSet({ heartbeat_ms: now })).execute();
    const zones = await this.db.selectFrom('acme_challenges').select('zone_id').distinct().execute();
    for (const { zone_id: zoneId } of zones) {
      const serial = this.servedSerial(zoneId);
      if (serial === undefined) continue;
      await this.db.insertInto('dns_node_zone_serials').values({ node_id: this.nodeId, zone_id: zoneId, serial, updated_ms: now })
        .onConflict((oc) => oc.columns(['node_id', 'zone_id']).doUpdateSet({ serial, updated_ms: now })).execute();
    }
    if (Math.random() < 0.01) {
      await this.db.deleteFrom('dns_nodes').where('heartbeat_ms', '<', now - FORGET_MS).execute();
      await this.db.deleteFrom('dns_node_zone_serials').where('updated_ms', '<', now - FORGET_MS).execute();
    }
  }

  /** The live nodes that do not serve `serial` of the zone yet, and how many nodes are live. */
  async behind(zoneId: string, serial: number): Promise<{ live: number; behind: string[] }> {
    const live = await this.db.selectFrom('dns_nodes').select('node_id').where('heartbeat_ms', '>=', Date.now() - this.timing.liveMs).execute();
    const rows = await this.db.selectFrom('dns_node_zone_serials').select(['node_id', 'serial']).where('zone_id', '=', zoneId).execute();
    const served = new Map(rows.map((r) => [r.node_id, Number(r.serial)]));
    return { live: live.length, behind: live.map((n) => n.node_id).filter((id) => (served.get(id) ?? -1) < serial) };
  }

  /** Waits until every live node serves at least `serial` of the zone; throws after `timeoutMs` or when `signal` aborts. */
  async waitServed(zoneId: string, serial: number, what: string, signal?: AbortSignal): Promise<void> {
    const end = Date.now() + this.timing.timeoutMs;
    for (;;) {
      signal?.throwIfAborted();
      await this.beat();
      const { live, behind } = await this.behind(zoneId, serial);
      if (behind.length === 0) return;
      if (Date.now() > end) {
        throw new Error(`${what} was not served by ${behind.length} of ${live} live DNS nodes within ${Math.round(this.timing.timeoutMs / 1000)} s `
          + `(serial ${serial} of the zone; nodes ${behind.join(', ')}): the CA was not asked to validate`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, WAIT_POLL_MS);
        function done(): void { clearTimeout(t); signal?.removeEventListener('abort', done); resolve(); }
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Stops beating and deletes this node's heartbeat (other nodes stop waiting for it at once). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.beating?.catch(() => {});
    await this.db.deleteFrom('dns_nodes').where('node_id', '=', this.nodeId).execute().catch(() => {});
    await this.db.deleteFrom('dns_node_zone_serials').where('node_id', '=', this.nodeId).execute().catch(() => {});
  }
}
