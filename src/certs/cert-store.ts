/**
 * The certificate room's storage (migration 0013): universal SSL per zone, certificate packs with their
 * status and issuance lease, certificates (a pack's or uploaded) with their private keys sealed at rest with
 * the secrets key (the same `SecretBox` that seals Worker secrets and DNSSEC keys), and the serial every node
 * polls. Every change of what the edge serves bumps the serial in its own transaction.
 *
 * Lease: a pack is ordered by the node holding its lease (`lease_holder`, until `lease_expires_ms`); a lease
 * past its expiry is free, so a node that died mid-order is taken over. Taking it is one conditional UPDATE,
 * which both dialects run atomically.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CertificatePacksTable, CertificatesTable } from '../db/schema-certificates.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { Clock } from '../shared/clock.js';
import { describeCertificate } from './x509.js';

/** A pack as stored. */
export type PackRow = CertificatePacksTable;
/** A certificate as stored (key still sealed). */
export type CertificateRow = CertificatesTable;

/** A certificate with its key opened. */
export interface OpenCertificate {
  row: CertificateRow;
  privateKeyPem: string;
}

/** The additional data a certificate's key is sealed with (a sealed key copied to another row does not open). */
export function certificateKeyContext(certificateId: string): string {
  return `certificate/${certificateId}`;
}

type Db = Kysely<Database> | Transaction<Database>;

/** Storage of packs, certificates and universal settings. */
export class CertificateStore {
  constructor(readonly db: Kysely<Database>, private readonly box: SecretBox, private readonly clock: Clock) {}

  /** The secrets box (the CA keys are sealed with it too). */
  get sealer(): SecretBox {
    return this.box;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Bumps the serial nodes poll (inside the caller's transaction). */
  async bump(trx: Db): Promise<void> {
    await trx.updateTable('certificate_serial').set({ serial: sql<number>`serial + 1` }).where('id', '=', 1).execute();
  }

  /** The current serial. */
  async serial(): Promise<number> {
    const row = await this.db.selectFrom('certificate_serial').select('serial').where('id', '=', 1).executeTakeFirst();
    return Number(row?.serial ?? 0);
  }

  /** Whether universal SSL is on for the zone (default on), and when it was last changed. */
  async universal(zoneId: string): Promise<{ enabled: boolean; modifiedOn?: string }> {
    const row = await this.db.selectFrom('ssl_settings').selectAll().where('zone_id', '=', zoneId).executeTakeFirst();
    return row ? { enabled: row.universal_enabled === 1, modifiedOn: row.modified_on } : { enabled: true };
  }

  /**
   * Locks the zone's row until the caller's transaction ends (a no-op UPDATE: a row lock on PostgreSQL, SQLite
   * has one writer anyway). Every transaction that decides from universal SSL's setting and writes a pack or its
   * certificate takes it first, as the change of the setting does, so the two never interleave.
   */
  async lockZone(trx: Transaction<Database>, zoneId: string): Promise<void> {
    await trx.updateTable('zones').set({ id: sql<string>`id` }).where('id', '=', zoneId).execute();
  }

  /** Turns universal SSL on or off; off deletes the zone's universal pack and its certificates. */
  async setUniversal(zoneId: string, enabled: boolean): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.lockZone(trx, zoneId);
      const now = this.now();
      await trx.insertInto('ssl_settings').values({ zone_id: zoneId, universal_enabled: enabled ? 1 : 0, modified_on: now })
        .onConflict((oc) => oc.column('zone_id').doUpdateSet({ universal_enabled: enabled ? 1 : 0, modified_on: now })).execute();
      if (!enabled) {
        const packs = await trx.selectFrom('certificate_packs').select('id').where('zone_id', '=', zoneId).where('type', '=', 'universal').execute();
        await this.deletePacks(trx, packs.map((p) => p.id));
      }
      await this.bump(trx);
    });
  }

  /** Creates a pack unless its slot is taken; returns the pack of the slot. */
  async ensurePack(p: { zoneId: string; slot?: string; type: 'universal' | 'advanced'; hosts: string[]; authority: string; validityDays: number }): Promise<PackRow | undefined> {
    const id = randomUUID();
    const now = this.now();
    // A universal pack only while universal SSL is on, checked and inserted under the zone's lock: a change
    // turning it off either waits for this insert (and deletes the pack) or went first (and no pack is made).
    return this.db.transaction().execute(async (trx) => {
      if (p.type === 'universal') {
        await this.lockZone(trx, p.zoneId);
        const row = await trx.selectFrom('ssl_settings').select('universal_enabled').where('zone_id', '=', p.zoneId).executeTakeFirst();
        if (row?.universal_enabled === 0) return undefined;
      }
      await trx.insertInto('certificate_packs').values({
        id, zone_id: p.zoneId, slot: p.slot ?? id, type: p.type, hosts: JSON.stringify(p.hosts), status: 'initializing', validation_method: 'txt',
        validity_days: p.validityDays, certificate_authority: p.authority, error: null, failures: 0, next_attempt_ms: 0, lease_holder: null,
        lease_expires_ms: 0, created_on: now, modified_on: now,
      }).onConflict((oc) => oc.column('slot').doNothing()).execute();
      return trx.selectFrom('certificate_packs').selectAll().where('slot', '=', p.slot ?? id).executeTakeFirstOrThrow();
    });
  }

  /** The zone's packs, oldest first. */
  async packs(zoneId: string): Promise<PackRow[]> {
    return this.db.selectFrom('certificate_packs').selectAll().where('zone_id', '=', zoneId).orderBy('created_on').orderBy('id').execute();
  }

  /** One pack of the zone. */
  async pack(zoneId: string, packId: string): Promise<PackRow | undefined> {
    return this.db.selectFrom('certificate_packs').selectAll().where('zone_id', '=', zoneId).where('id', '=', packId).executeTakeFirst();
  }

  /** Every pack (the issuance loop's scan). */
  async allPacks(): Promise<PackRow[]> {
    return this.db.selectFrom('certificate_packs').selectAll().execute();
  }

  /** Deletes packs and their certificates (inside the caller's transaction). */
  async deletePacks(trx: Db, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await trx.deleteFrom('certificates').where('pack_id', 'in', ids).execute();
    await trx.deleteFrom('certificate_packs').where('id', 'in', ids).execute();
  }

  /** Deletes packs with their certificates and bumps the serial. */
  async removePacks(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.transaction().execute(async (trx) => { await this.deletePacks(trx, ids); await this.bump(trx); });
  }

  /** Takes the pack's lease for `ms` when it is free, expired or already ours; true when taken. */
  async takeLease(packId: string, holder: string, nowMs: number, ms: number): Promise<boolean> {
    const res = await this.db.updateTable('certificate_packs').set({ lease_holder: holder, lease_expires_ms: nowMs + ms })
      .where('id', '=', packId)
      .where((eb) => eb.or([eb('lease_holder', 'is', null), eb('lease_expires_ms', '<', nowMs), eb('lease_holder', '=', holder)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Gives the lease back. */
  async releaseLease(packId: string, holder: string): Promise<void> {
    await this.db.updateTable('certificate_packs').set({ lease_holder: null, lease_expires_ms: 0 }).where('id', '=', packId).where('lease_holder', '=', holder).execute();
  }

  /** Sets a pack's status (and clears or keeps its error). */
  async setStatus(packId: string, status: string): Promise<void> {
    await this.db.updateTable('certificate_packs').set({ status, modified_on: this.now() }).where('id', '=', packId).execute();
  }

  /** Records a failed order: the reason, one more failure and when to try again. */
  async failed(packId: string, reason: string, failures: number, nextAttemptMs: number, status: string): Promise<void> {
    await this.db.updateTable('certificate_packs').set({ status, error: reason.slice(0, 500), failures, next_attempt_ms: nextAttemptMs, modified_on: this.now() })
      .where('id', '=', packId).execute();
  }

  /** Stores an issued certificate as the pack's only one, marks the pack active and bumps the serial. */
  async issued(pack: PackRow, chainPem: string, keyPem: string): Promise<CertificateRow> {
    const facts = describeCertificate(chainPem);
    const id = randomUUID();
    const now = this.now();
    const row: CertificateRow = {
      id, zone_id: pack.zone_id, pack_id: pack.id, kind: pack.type, hosts: JSON.stringify(facts.hosts), certificate_pem: chainPem,
      sealed_key: this.box.seal(keyPem, certificateKeyContext(id)), issuer: facts.issuer, signature: facts.signature, priority: 0,
      bundle_method: 'ubiquitous', expires_on: facts.expiresOn.toISOString(), uploaded_on: now, modified_on: now,
    };
    await this.db.transaction().execute(async (trx) => {
      await this.lockZone(trx, pack.zone_id);
      const still = await trx.selectFrom('certificate_packs').select('id').where('id', '=', pack.id).executeTakeFirst();
      if (!still) return; // deleted while ordering (universal turned off): nothing to keep
      const off = await trx.selectFrom('ssl_settings').select('universal_enabled').where('zone_id', '=', pack.zone_id).executeTakeFirst();
      if (pack.type === 'universal' && off?.universal_enabled === 0) return; // turned off while ordering
      await trx.deleteFrom('certificates').where('pack_id', '=', pack.id).execute();
      await trx.insertInto('certificates').values(row).execute();
      await trx.updateTable('certificate_packs').set({ status: 'active', error: null, failures: 0, next_attempt_ms: 0, modified_on: now }).where('id', '=', pack.id).execute();
      await this.bump(trx);
    });
    return row;
  }

  /** The certificates of packs, by pack id. */
  async packCertificates(packIds: string[]): Promise<Map<string, CertificateRow[]>> {
    const out = new Map<string, CertificateRow[]>();
    if (packIds.length === 0) return out;
    const rows = await this.db.selectFrom('certificates').selectAll().where('pack_id', 'in', packIds).execute();
    for (const r of rows) {
      const list = out.get(r.pack_id!) ?? [];
      list.push(r);
      out.set(r.pack_id!, list);
    }
    return out;
  }

  /** Stores an uploaded certificate (chain and key already checked). */
  async addCustom(zoneId: string, chainPem: string, keyPem: string, priority: number, bundleMethod: string): Promise<CertificateRow> {
    const facts = describeCertificate(chainPem);
    const id = randomUUID();
    const now = this.now();
    const row: CertificateRow = {
      id, zone_id: zoneId, pack_id: null, kind: 'custom', hosts: JSON.stringify(facts.hosts), certificate_pem: chainPem,
      sealed_key: this.box.seal(keyPem, certificateKeyContext(id)), issuer: facts.issuer, signature: facts.signature, priority,
      bundle_method: bundleMethod, expires_on: facts.expiresOn.toISOString(), uploaded_on: now, modified_on: now,
    };
    await this.db.transaction().execute(async (trx) => { await trx.insertInto('certificates').values(row).execute(); await this.bump(trx); });
    return row;
  }

  /** The zone's uploaded certificates, by priority then upload time. */
  async customs(zoneId: string): Promise<CertificateRow[]> {
    return this.db.selectFrom('certificates').selectAll().where('zone_id', '=', zoneId).where('kind', '=', 'custom').orderBy('priority').orderBy('uploaded_on').execute();
  }

  /** One uploaded certificate of the zone. */
  async custom(zoneId: string, id: string): Promise<CertificateRow | undefined> {
    return this.db.selectFrom('certificates').selectAll().where('zone_id', '=', zoneId).where('kind', '=', 'custom').where('id', '=', id).executeTakeFirst();
  }

  /** Changes an uploaded certificate (new chain and key, priority, bundle method); undefined when it is gone. */
  async updateCustom(zoneId: string, id: string, p: { chainPem?: string; keyPem?: string; priority?: number; bundleMethod?: string }): Promise<CertificateRow | undefined> {
    const now = this.now();
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('certificates').selectAll().where('zone_id', '=', zoneId).where('kind', '=', 'custom').where('id', '=', id).executeTakeFirst();
      if (!row) return undefined;
      const next: CertificateRow = { ...row, modified_on: now, priority: p.priority ?? row.priority, bundle_method: p.bundleMethod ?? row.bundle_method };
      if (p.chainPem !== undefined && p.keyPem !== undefined) {
        const facts = describeCertificate(p.chainPem);
        Object.assign(next, { certificate_pem: p.chainPem, sealed_key: this.box.seal(p.keyPem, certificateKeyContext(id)), hosts: JSON.stringify(facts.hosts),
          issuer: facts.issuer, signature: facts.signature, expires_on: facts.expiresOn.toISOString() });
      }
      const { id: _id, ...set } = next;
      await trx.updateTable('certificates').set(set).where('id', '=', id).execute();
      await this.bump(trx);
      return next;
    });
  }

  /** Deletes an uploaded certificate; false when there was none. */
  async deleteCustom(zoneId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const res = await trx.deleteFrom('certificates').where('zone_id', '=', zoneId).where('kind', '=', 'custom').where('id', '=', id).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) return false;
      await this.bump(trx);
      return true;
    });
  }

  /** Every certificate of an active zone, keys opened (rows whose key does not open are reported and skipped). */
  async served(onBad: (id: string, err: unknown) => void): Promise<OpenCertificate[]> {
    const rows = await this.db.selectFrom('certificates').innerJoin('zones', 'zones.id', 'certificates.zone_id')
      .selectAll('certificates').where('zones.status', '=', 'active').execute();
    const out: OpenCertificate[] = [];
    for (const row of rows) {
      try { out.push({ row, privateKeyPem: this.box.open(row.sealed_key, certificateKeyContext(row.id)) }); } catch (err) { onBad(row.id, err); }
    }
    return out;
  }

  /** Deletes packs and certificates of zones that no longer exist. */
  async pruneDeletedZones(): Promise<void> {
    const packs = await this.db.selectFrom('certificate_packs').select('id')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('zones').select('zones.id').whereRef('zones.id', '=', 'certificate_packs.zone_id')))).execute();
    const customs = await this.db.selectFrom('certificates').select('id').where('kind', '=', 'custom')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('zones').select('zones.id').whereRef('zones.id', '=', 'certificates.zone_id')))).execute();
    if (packs.length === 0 && customs.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      await this.deletePacks(trx, packs.map((p) => p.id));
      if (customs.length > 0) await trx.deleteFrom('certificates').where('id', 'in', customs.map((c) => c.id)).execute();
      await this.bump(trx);
    });
  }
}
