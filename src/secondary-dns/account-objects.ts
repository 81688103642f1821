/**
 * An account's secondary DNS objects, in production's shapes (`dns.zoneTransfers.tsigs/peers/acls` of the SDK):
 * TSIG keys (`name`, `algo` such as `hmac-sha256.`, `secret` in base64 as BIND and Knot write it; sealed at rest
 * with the secrets key, returned as production returns it), peers (`name`, `ip`, `port`, `ixfr_enable`,
 * `tsig_id`) and ACLs (`name`, `ip_range`). Every write bumps the secondary DNS serial, which the DNS servers
 * poll to reload what they enforce (transfer-policy.ts). Another account's ids are 7003 / 404 like unknown ones.
 * A peer ip in a prohibited range (peer-address.ts, `--transfer-peer-allow`) is refused with 1294.
 */
import net from 'node:net';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { SecretBox } from '../shared/secret-box.js';
import { tsigHash } from '../dns/tsig.js';
import { INVALID_SECONDARY_DNS, notFound } from './errors.js';
import { secondaryDnsChanged } from './change-signal.js';
import { peerAddressError, peerAddressRefusal, type PeerAddressPolicy } from './peer-address.js';

/** A TSIG key as the API shows it. */
export interface TsigView { id: string; name: string; algo: string; secret: string }
/** A peer as the API shows it. */
export interface PeerView { id: string; name: string; ip?: string; port?: number; ixfr_enable?: boolean; tsig_id?: string }
/** An ACL as the API shows it. */
export interface AclView { id: string; name: string; ip_range: string }

/** The sealing context of a TSIG secret (its id: a sealed secret copied to another row does not open). */
export function tsigSealContext(id: string): string {
  return `secondary-dns-tsig:${id}`;
}

/** Bumps the secondary DNS serial (inside the write's transaction). */
export async function bumpSecondaryDnsSerial(trx: Transaction<Database> | Kysely<Database>): Promise<void> {
  await trx.updateTable('secondary_dns_serial').set((eb) => ({ serial: eb('serial', '+', 1) })).where('id', '=', 1).execute();
}

function bad(message: string): AppError {
  return new AppError(INVALID_SECONDARY_DNS, message, 400);
}

function text(body: Record<string, unknown>, field: string, required: boolean, max = 255): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) {
    if (required) throw bad(`Invalid ${field}: required`);
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '' || v.length > max) throw bad(`Invalid ${field}: expected a non-empty string of at most ${max} characters`);
  return v.trim();
}

function keyName(body: Record<string, unknown>): string {
  const name = text(body, 'name', true)!;
  if (!/^([a-zA-Z0-9_-]{1,63}\.)*[a-zA-Z0-9_-]{1,63}\.?$/.test(name)) throw bad('Invalid name: a TSIG key name must be a domain name');
  return name;
}

function tsigBody(body: Record<string, unknown>): { name: string; algo: string; secret: string } {
  const name = keyName(body);
  const algo = text(body, 'algo', true)!;
  if (!tsigHash(algo)) throw bad('Invalid algo: one of hmac-md5.sig-alg.reg.int., hmac-sha1., hmac-sha224., hmac-sha256., hmac-sha384., hmac-sha512.');
  const secret = text(body, 'secret', true, 1024)!;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(secret) || Buffer.from(secret, 'base64').length === 0) throw bad('Invalid secret: expected base64');
  return { name, algo, secret };
}

/** True for an IPv4 or IPv6 address or CIDR range. */
export function isIpRange(range: string): boolean {
  const [addr, bits, extra] = range.split('/');
  if (extra !== undefined || !addr) return false;
  const kind = net.isIP(addr);
  if (kind === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (kind === 4 ? 32 : 128);
}

/** The secondary DNS objects of accounts. */
export class AccountObjects {
  /** `peers` decides peer addresses (peer-address.ts): a prohibited ip is refused with 1294. */
  constructor(private readonly db: Kysely<Database>, private readonly box: SecretBox, private readonly peers: PeerAddressPolicy) {}

  private tsigView(row: Database['secondary_dns_tsigs']): TsigView {
    return { id: row.id, name: row.name, algo: row.algo, secret: this.box.open(row.secret_sealed, tsigSealContext(row.id)) };
  }

  /** The account's TSIG keys. */
  async listTsigs(accountId: string): Promise<TsigView[]> {
    const rows = await this.db.selectFrom('secondary_dns_tsigs').selectAll().where('account_id', '=', accountId).orderBy('created_on').orderBy('id').execute();
    return rows.map((r) => this.tsigView(r));
  }

  /** One TSIG key of the account (7003 otherwise). */
  async getTsig(accountId: string, id: string, path: string): Promise<TsigView> {
    const row = await this.db.selectFrom('secondary_dns_tsigs').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(path);
    return this.tsigView(row);
  }

  /** Creates a TSIG key. */
  async createTsig(accountId: string, body: Record<string, unknown>): Promise<TsigView> {
    const t = tsigBody(body);
    const id = newId();
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('secondary_dns_tsigs').values({ id, account_id: accountId, name: t.name, algo: t.algo, secret_sealed: this.box.seal(t.secret, tsigSealContext(id)), created_on: new Date().toISOString() }).execute();
      await bumpSecondaryDnsSerial(trx);
    });
    secondaryDnsChanged();
    return { id, ...t };
  }

  /** Replaces a TSIG key's fields (PUT). */
  async updateTsig(accountId: string, id: string, body: Record<string, unknown>, path: string): Promise<TsigView> {
    const t = tsigBody(body);
    await this.write(async (trx) => {
      const res = await trx.updateTable('secondary_dns_tsigs').set({ name: t.name, algo: t.algo, secret_sealed: this.box.seal(t.secret, tsigSealContext(id)) })
        .where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound(path);
    });
    return { id, ...t };
  }

  /** Deletes a TSIG key; peers that used it keep no key. */
  async deleteTsig(accountId: string, id: string, path: string): Promise<void> {
    await this.write(async (trx) => {
      const res = await trx.deleteFrom('secondary_dns_tsigs').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) throw notFound(path);
      await trx.updateTable('secondary_dns_peers').set({ tsig_id: null }).where('account_id', '=', accountId).where('tsig_id', '=', id).execute();
    });
  }

  private peerView(row: Database['secondary_dns_peers']): PeerView {
    return {
      id: row.id, name: row.name,
      ...(row.ip !== null ? { ip: row.ip } : {}),
      ...(row.port !== null ? { port: row.port } : {}),
      ixfr_enable: row.ixfr_enable === 1,
      ...(row.tsig_id !== null ? { tsig_id: row.tsig_id } : {}),
    };
  }

  private async peerBody(accountId: string, body: Record<string, unknown>): Promise<Omit<Database['secondary_dns_peers'], 'id' | 'account_id' | 'created_on'>> {
    const name = text(body, 'name', true)!;
    const ip = text(body, 'ip', false, 45);
    if (ip !== undefined && net.isIP(ip) === 0) throw bad('Invalid ip: expected an IPv4 or IPv6 address');
    const refused = ip === undefined ? undefined : peerAddressRefusal(this.peers, ip);
    if (refused) throw peerAddressError(refused);
    const port = body.port;
    if (port !== undefined && port !== null && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)) throw bad('Invalid port: expected an integer from 1 to 65535');
    const ixfr = body.ixfr_enable;
    if (ixfr !== undefined && ixfr !== null && typeof ixfr !== 'boolean') throw bad('Invalid ixfr_enable: expected true or false');
    const tsigId = text(body, 'tsig_id', false, 64);
    if (tsigId !== undefined) {
      const found = await this.db.selectFrom('secondary_dns_tsigs').select('id').where('account_id', '=', accountId).where('id', '=', tsigId).executeTakeFirst();
      if (!found) throw bad(`Invalid tsig_id: no TSIG ${tsigId} in this account`);
    }
    return { name, ip: ip ?? null, port: typeof port === 'number' ? port : (ip !== undefined ? 53 : null), ixfr_enable: ixfr === true ? 1 : 0, tsig_id: tsigId ?? null };
  }

  /** The account's peers. */
  async listPeers(accountId: string): Promise<PeerView[]> {
    const rows = await this.db.selectFrom('secondary_dns_peers').selectAll().where('account_id', '=', accountId).orderBy('created_on').orderBy('id').execute();
    return rows.map((r) => this.peerView(r));
  }

  /** One peer of the account. */
  async getPeer(accountId: string, id: string, path: string): Promise<PeerView> {
    const row = await this.db.selectFrom('secondary_dns_peers').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(path);
    return this.peerView(row);
  }

  /** Creates a peer (production takes the name; ip, port, ixfr_enable and tsig_id are taken too). */
  async createPeer(accountId: string, body: Record<string, unknown>): Promise<PeerView> {
    const p = await this.peerBody(accountId, body);
    const row = { id: newId(), account_id: accountId, created_on: new Date().toISOString(), ...p };
    await this.write((trx) => trx.insertInto('secondary_dns_peers').values(row).execute());
    return this.peerView(row);
  }

  /** Replaces a peer's fields (PUT). */
  async updatePeer(accountId: string, id: string, body: Record<string, unknown>, path: string): Promise<PeerView> {
    const p = await this.peerBody(accountId, body);
    await this.write(async (trx) => {
      const res = await trx.updateTable('secondary_dns_peers').set(p).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound(path);
    });
    return this.getPeer(accountId, id, path);
  }

  /** Deletes a peer (zones that listed it stop transferring to it). */
  async deletePeer(accountId: string, id: string, path: string): Promise<void> {
    await this.write(async (trx) => {
      const res = await trx.deleteFrom('secondary_dns_peers').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) throw notFound(path);
    });
  }

  private aclBody(body: Record<string, unknown>): { name: string; ip_range: string } {
    const name = text(body, 'name', true)!;
    const range = text(body, 'ip_range', true, 64)!;
    if (!isIpRange(range)) throw bad('Invalid ip_range: expected an IPv4 or IPv6 address or CIDR range');
    return { name, ip_range: range };
  }

  /** The account's ACLs. */
  async listAcls(accountId: string): Promise<AclView[]> {
    return this.db.selectFrom('secondary_dns_acls').select(['id', 'name', 'ip_range']).where('account_id', '=', accountId).orderBy('created_on').orderBy('id').execute();
  }

  /** One ACL of the account. */
  async getAcl(accountId: string, id: string, path: string): Promise<AclView> {
    const row = await this.db.selectFrom('secondary_dns_acls').select(['id', 'name', 'ip_range']).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(path);
    return row;
  }

  /** Creates an ACL. */
  async createAcl(accountId: string, body: Record<string, unknown>): Promise<AclView> {
    const a = this.aclBody(body);
    const id = newId();
    await this.write((trx) => trx.insertInto('secondary_dns_acls').values({ id, account_id: accountId, created_on: new Date().toISOString(), ...a }).execute());
    return { id, ...a };
  }

  /** Replaces an ACL's fields (PUT). */
  async updateAcl(accountId: string, id: string, body: Record<string, unknown>, path: string): Promise<AclView> {
    const a = this.aclBody(body);
    await this.write(async (trx) => {
      const res = await trx.updateTable('secondary_dns_acls').set(a).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound(path);
    });
    return { id, ...a };
  }

  /** Deletes an ACL. */
  async deleteAcl(accountId: string, id: string, path: string): Promise<void> {
    await this.write(async (trx) => {
      const res = await trx.deleteFrom('secondary_dns_acls').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) throw notFound(path);
    });
  }

  private async write(fn: (trx: Transaction<Database>) => Promise<unknown>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await fn(trx);
      await bumpSecondaryDnsSerial(trx);
    });
    secondaryDnsChanged();
  }
}
