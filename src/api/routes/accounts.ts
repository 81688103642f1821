/**
 * `GET /accounts`, `POST /accounts`, `GET /accounts/:account_id`: only the caller's accounts exist for it (for
 * an API token, those it reaches); accounts are created with the global key only.
 */
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import type { ApiEnv } from '../context.js';
import type { Database } from '../../db/schema.js';
import { createAccount, getAccount, listAccounts, type AccountRow } from '../../accounts/accounts.js';
import { readJsonObject } from '../body.js';
import { isoTimestamp, type Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { parseChoice, parsePaging } from '../paging.js';
import { ok, okPage } from '../respond.js';
import { applyLegacyAccountFields, publicAccountSettings } from '../../zones/settings/legacy.js';
import { unauthorized, visibleAccountIds } from '../token-access.js';

/** The account object of API responses. */
export function accountView(a: AccountRow): Record<string, unknown> {
  const stored = JSON.parse(a.settings) as Record<string, unknown>;
  return {
    id: a.id,
    name: a.name,
    type: 'standard',
    settings: { enforce_twofactor: false, api_access_enabled: null, access_approval_expiry: null, abuse_contact_email: null, ...publicAccountSettings(stored) },
    legacy_flags: { enterprise_zone_quota: { maximum: 0, current: 0, available: 0 } },
    created_on: a.created_on,
  };
}

/** Routes of accounts. */
export function accountRoutes(db: Kysely<Database>, clock: Clock): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  // POST /accounts: a new account with the caller as its member. `settings` may carry the legacy fields
  // default_nameservers / use_account_custom_ns_by_default (kept in sync with zone_defaults.nameservers.type).
  app.post('/accounts', async (c) => {
    if (c.get('user').token) throw unauthorized(); // accounts are created with the global key only
    const fields = await readJsonObject(c);
    const name = typeof fields.name === 'string' ? fields.name.trim() : '';
    if (name === '' || name.length > 100) throw new AppError(1113, 'Invalid account name: send "name", a string of 1 to 100 characters', 400);
    if (fields.type !== undefined && fields.type !== 'standard' && fields.type !== 'enterprise') {
      throw new AppError(1113, 'Invalid account type: send "standard" or "enterprise"', 400);
    }
    const settingsBody = fields.settings ?? {};
    if (typeof settingsBody !== 'object' || settingsBody === null || Array.isArray(settingsBody)) throw new AppError(1113, 'Invalid account settings: send an object', 400);
    const settings = applyLegacyAccountFields({}, settingsBody as Record<string, unknown>);
    const user = c.get('user');
    const row = await createAccount(db, user.id, name, settings, isoTimestamp(clock.now()));
    user.accountIds.push(row.id); // the remembered identity sees its new account at once
    return ok(c, accountView(row));
  });
  app.get('/accounts', async (c) => {
    const { page, perPage } = parsePaging(c.req.query('page'), c.req.query('per_page'), { defaultPerPage: 20, maxPerPage: 50 });
    parseChoice('direction', c.req.query('direction'), ['asc', 'desc'], 'asc');
    const { accounts, total } = await listAccounts(db, await visibleAccountIds(c.get('services').zones, c.get('user')), page, perPage);
    return okPage(c, accounts.map(accountView), page, perPage, total);
  });
  app.get('/accounts/:account_id', async (c) => {
    const id = c.req.param('account_id');
    const account = await getAccount(db, await visibleAccountIds(c.get('services').zones, c.get('user')), id);
    if (!account) throw new AppError(7003, `Could not route to ${c.req.path}, perhaps your object identifier is invalid?`, 404);
    return ok(c, accountView(account));
  });
  return app;
}
