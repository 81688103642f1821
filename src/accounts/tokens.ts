/**
 * API tokens: creation, listing, update, deletion and rolling of user-owned (`/user/tokens`) and
 * account-owned (`/accounts/:account_id/tokens`) tokens, and the authentication of a presented value.
 * A token's value is 40 characters of `[A-Za-z0-9_-]` (production's shape), shown once at creation or roll;
 * only its SHA-256 is stored. A token acts as the user who created it, bounded by its policies; an
 * account-owned token acts on its account only.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { ApiTokensTable, Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { UniqueViolationError } from '../db/unique-violation.js';
import { isoTimestamp, type Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { hashKey } from './keys.js';
import { PERMISSION_GROUPS, permissionGroup } from './permission-groups.js';
import { TOKEN_POLICY_ERROR, TokenGrants, parseCondition, parsePolicies, type TokenCondition, type TokenOwner, type TokenPolicy } from './token-policy.js';
import './unique-keys.js';

/** A stored token. */
export type TokenRow = Selectable<ApiTokensTable>;

/** A token that authenticated a request. */
export interface AuthenticatedToken {
  row: TokenRow;
  grants: TokenGrants;
  user: { id: string; email: string; accountIds: string[] };
}

/** Who manages tokens: the owner, and the accounts the acting user belongs to (to check resources). */
export interface TokenManager {
  owner: TokenOwner;
  /** The acting user (recorded as the creator). */
  userId: string;
  /** Accounts whose zones and accounts the new policies may name. */
  accountIds: readonly string[];
}

/** Bumped by every token change made in this process, so that remembered authentications are redone at once. */
let changeGeneration = 0;

/** The number of token changes made in this process (authentication caches compare it). */
export function tokenChangeGeneration(): number {
  return changeGeneration;
}

/** A new token value: 40 characters of base64url. */
export function generateTokenValue(): string {
  return randomBytes(30).toString('base64url');
}

/** The token's status at `now`: `expired` once `expires_on` has passed. */
export function tokenStatus(row: TokenRow, now: Date): 'active' | 'disabled' | 'expired' {
  if (row.status === 'disabled') return 'disabled';
  if (row.expires_on !== null && Date.parse(row.expires_on) <= now.getTime()) return 'expired';
  return 'active';
}

/** The token as the API shows it (never its value). */
export function tokenView(row: TokenRow, now: Date): Record<string, unknown> {
  const policies = JSON.parse(row.policies) as TokenPolicy[];
  return {
    id: row.id,
    name: row.name,
    status: tokenStatus(row, now),
    issued_on: row.issued_on,
    modified_on: row.modified_on,
    ...(row.last_used_on !== null ? { last_used_on: row.last_used_on } : {}),
    ...(row.not_before !== null ? { not_before: row.not_before } : {}),
    ...(row.expires_on !== null ? { expires_on: row.expires_on } : {}),
    policies: policies.map((p) => ({
      id: p.id,
      effect: p.effect,
      resources: p.resources,
      permission_groups: p.permission_groups.map((g) => ({ id: g.id, name: permissionGroup(g.id)?.name ?? g.id })),
    })),
    ...(row.condition !== null ? { condition: JSON.parse(row.condition) as TokenCondition } : {}),
  };
}

/** Policies granting every permission group on every zone and account of the user, and on the user. */
export function fullAccessPolicies(userId: string): TokenPolicy[] {
  const groups = (scope: string) => PERMISSION_GROUPS.filter((g) => g.scope === scope).map((g) => ({ id: g.id }));
  return [
    // An account key with "*" covers every zone of the account and lets zone groups act on the account (POST /zones).
    { id: newId(), effect: 'allow', permission_groups: groups('com.cloudflare.api.account.zone'), resources: { 'com.cloudflare.api.account.*': '*' } },
    { id: newId(), effect: 'allow', permission_groups: groups('com.cloudflare.api.account'), resources: { 'com.cloudflare.api.account.*': '*' } },
    { id: newId(), effect: 'allow', permission_groups: groups('com.cloudflare.api.user'), resources: { [`com.cloudflare.api.user.${userId}`]: '*' } },
  ];
}

/** Parses an optional RFC 3339 date-time field. */
function optionalTime(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new AppError(TOKEN_POLICY_ERROR, `Invalid ${field} ${JSON.stringify(value)}: expected an RFC 3339 date-time such as 2030-01-01T00:00:00Z`, 400);
  }
  return new Date(Date.parse(value)).toISOString().replace('.000Z', 'Z');
}

/** The tokens service. */
export class TokensService {
  /** When each token's `last_used_on` was last written (written at most once a minute). */
  private readonly lastUseWritten = new Map<string, number>();

  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock) {}

  /** Creates a token; returns it with its value (the only time the value is shown). */
  async create(manager: TokenManager, body: Record<string, unknown>): Promise<{ row: TokenRow; value: string }> {
    const fields = await this.validate(manager, body);
    const value = generateTokenValue();
    const row = await this.insert(value, { user_id: manager.userId, account_id: manager.owner.kind === 'account' ? manager.owner.accountId : null, ...fields });
    return { row, value };
  }

  /** Stores a user's token with a value chosen by the operator (the bootstrap token), unless that value is already a token. */
  async ensure(userId: string, name: string, value: string, policies: TokenPolicy[]): Promise<TokenRow> {
    const find = () => this.db.selectFrom('api_tokens').selectAll().where('value_hash', '=', hashKey(value)).executeTakeFirst();
    const existing = await find();
    if (existing) return existing;
    try {
      return await this.insert(value, { user_id: userId, account_id: null, name, policies: JSON.stringify(policies), condition: null, not_before: null, expires_on: null });
    } catch (err) {
      // Another node stored the same value at the same moment (two nodes starting with one --api-token).
      const raced = err instanceof UniqueViolationError && err.on('api_tokens') ? await find() : undefined;
      if (raced) return raced;
      throw err;
    }
  }

  /** Inserts an active token with this value. */
  private async insert(value: string, fields: Omit<TokenRow, 'id' | 'value_hash' | 'status' | 'issued_on' | 'modified_on' | 'last_used_on'>): Promise<TokenRow> {
    const now = isoTimestamp(this.clock.now());
    const row: TokenRow = { id: newId(), value_hash: hashKey(value), status: 'active', issued_on: now, modified_on: now, last_used_on: null, ...fields };
    await this.db.insertInto('api_tokens').values(row).execute();
    return row;
  }

  /** One page of the owner's tokens (expired ones only with `includeExpired`). */
  async list(owner: TokenOwner, opts: { page: number; perPage: number; direction: 'asc' | 'desc'; includeExpired: boolean }): Promise<{ rows: TokenRow[]; total: number }> {
    const now = this.clock.now();
    const all = (await this.owned(owner).orderBy('issued_on', opts.direction).orderBy('id', opts.direction).execute())
      .filter((r) => opts.includeExpired || tokenStatus(r, now) !== 'expired');
    return { rows: all.slice((opts.page - 1) * opts.perPage, opts.page * opts.perPage), total: all.length };
  }

  /** The owner's token with this id; 404 + 7003 naming `path` otherwise. */
  async get(owner: TokenOwner, id: string, path: string): Promise<TokenRow> {
    const row = await this.owned(owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError(7003, `Could not route to ${path}, perhaps your object identifier is invalid?`, 404);
    return row;
  }

  /** Replaces a token's name, policies, condition, validity window and (optionally) status. */
  async update(manager: TokenManager, id: string, body: Record<string, unknown>, path: string): Promise<TokenRow> {
    const current = await this.get(manager.owner, id, path);
    const fields = await this.validate(manager, body);
    let status = current.status;
    if (body.status !== undefined) {
      if (body.status !== 'active' && body.status !== 'disabled') throw new AppError(TOKEN_POLICY_ERROR, `Invalid status ${JSON.stringify(body.status)}: use "active" or "disabled"`, 400);
      status = body.status;
    }
    const updated: TokenRow = { ...current, ...fields, status, modified_on: isoTimestamp(this.clock.now()) };
    await this.db.updateTable('api_tokens').set({ ...fields, status, modified_on: updated.modified_on }).where('id', '=', id).execute();
    changeGeneration++;
    return updated;
  }

  /** Deletes a token. */
  async delete(owner: TokenOwner, id: string, path: string): Promise<void> {
    await this.get(owner, id, path);
    await this.db.deleteFrom('api_tokens').where('id', '=', id).execute();
    changeGeneration++;
  }

  /** Gives a token a new value (the old one stops working at once); returns the value. */
  async roll(owner: TokenOwner, id: string, path: string): Promise<string> {
    await this.get(owner, id, path);
    const value = generateTokenValue();
    await this.db.updateTable('api_tokens').set({ value_hash: hashKey(value), modified_on: isoTimestamp(this.clock.now()) }).where('id', '=', id).execute();
    changeGeneration++;
    return value;
  }

  /** The active token with this value and its user, or undefined (unknown, disabled, expired or not yet valid). */
  async authenticate(value: string): Promise<AuthenticatedToken | undefined> {
    return this.usable(await this.db.selectFrom('api_tokens').selectAll().where('value_hash', '=', hashKey(value)).executeTakeFirst());
  }

  /**
   * The S3 key pair of a token, as production derives it: the access key id is the token's id and the secret
   * the SHA-256 hex of its value (what Stratus stores). Undefined unless the token is usable.
   */
  async s3Principal(accessKeyId: string): Promise<{ secret: string; token: AuthenticatedToken } | undefined> {
    if (!/^[0-9a-f]{32}$/.test(accessKeyId)) return undefined;
    const token = await this.usable(await this.db.selectFrom('api_tokens').selectAll().where('id', '=', accessKeyId).executeTakeFirst());
    return token && { secret: token.row.value_hash, token };
  }

  /** The token with its grants and user, when it may authenticate now. */
  private async usable(row: TokenRow | undefined): Promise<AuthenticatedToken | undefined> {
    const now = this.clock.now();
    if (!row || tokenStatus(row, now) !== 'active') return undefined;
    if (row.not_before !== null && Date.parse(row.not_before) > now.getTime()) return undefined;
    const user = await this.db.selectFrom('users').select(['id', 'email']).where('id', '=', row.user_id).executeTakeFirst();
    if (!user) return undefined;
    const memberships = await this.db.selectFrom('memberships').select('account_id').where('user_id', '=', user.id).execute();
    const member = memberships.map((m) => m.account_id);
    const accountIds = row.account_id === null ? member : member.filter((a) => a === row.account_id);
    const condition = row.condition === null ? undefined : JSON.parse(row.condition) as TokenCondition;
    await this.noteUse(row.id, now);
    return { row, grants: new TokenGrants(JSON.parse(row.policies) as TokenPolicy[], condition), user: { id: user.id, email: user.email, accountIds } };
  }

  /** Records `last_used_on`, at most once a minute per token. */
  private async noteUse(id: string, now: Date): Promise<void> {
    const last = this.lastUseWritten.get(id) ?? 0;
    if (now.getTime() - last < 60_000) return;
    if (this.lastUseWritten.size > 10_000) this.lastUseWritten.clear();
    this.lastUseWritten.set(id, now.getTime());
    await this.db.updateTable('api_tokens').set({ last_used_on: isoTimestamp(now) }).where('id', '=', id).execute();
  }

  private owned(owner: TokenOwner) {
    const q = this.db.selectFrom('api_tokens').selectAll();
    return owner.kind === 'user'
      ? q.where('user_id', '=', owner.userId).where('account_id', 'is', null)
      : q.where('account_id', '=', owner.accountId);
  }

  /** Validates a create/update body; checks that named zones and accounts belong to the manager. */
  private async validate(manager: TokenManager, body: Record<string, unknown>): Promise<Pick<TokenRow, 'name' | 'policies' | 'condition' | 'not_before' | 'expires_on'>> {
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (name === '' || name.length > 120) throw new AppError(TOKEN_POLICY_ERROR, 'Invalid name: send "name", a string of 1 to 120 characters', 400);
    const { policies, zoneIds, accountIds } = parsePolicies(body.policies, manager.owner, newId);
    const allowedAccounts = manager.owner.kind === 'account' ? [manager.owner.accountId] : manager.accountIds;
    for (const a of accountIds) {
      if (!allowedAccounts.includes(a)) throw new AppError(TOKEN_POLICY_ERROR, `Invalid resources: account ${a} is not ${manager.owner.kind === 'account' ? "the token's account" : 'one of yours'}`, 400);
    }
    if (zoneIds.length > 0) {
      const found = allowedAccounts.length === 0 ? [] : await this.db.selectFrom('zones').select('id').where('id', 'in', zoneIds).where('account_id', 'in', [...allowedAccounts]).execute();
      const missing = zoneIds.find((z) => !found.some((f) => f.id === z));
      if (missing !== undefined) throw new AppError(TOKEN_POLICY_ERROR, `Invalid resources: zone ${missing} is not a zone of ${manager.owner.kind === 'account' ? "the token's account" : 'your accounts'}`, 400);
    }
    const condition = parseCondition(body.condition);
    const notBefore = optionalTime('not_before', body.not_before);
    const expiresOn = optionalTime('expires_on', body.expires_on);
    if (notBefore !== null && expiresOn !== null && Date.parse(expiresOn) <= Date.parse(notBefore)) {
      throw new AppError(TOKEN_POLICY_ERROR, 'Invalid expires_on: it must be later than not_before', 400);
    }
    return { name, policies: JSON.stringify(policies), condition: condition === undefined ? null : JSON.stringify(condition), not_before: notBefore, expires_on: expiresOn };
  }
}
