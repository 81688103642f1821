/**
 * API tokens over v4, for a user (`/user/tokens…`) and for an account (`/accounts/:account_id/tokens…`), with
 * the same shape under both prefixes: list, create (the value is returned once), get, update (PUT replaces
 * name, policies, condition, validity and status), delete, roll (`PUT …/:token_id/value` returns the new
 * value), verify (`GET …/verify`: the token of the request itself), and the permission groups a policy may
 * name. Who may call them is decided by `route-permissions.ts` (API Tokens Read/Write on the user, Account
 * API Tokens Read/Write on the account) and, for the global key, by account membership.
 */
import { Hono, type Context } from 'hono';
import type { Kysely } from 'kysely';
import type { ApiEnv } from '../context.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { TokensService, tokenStatus, tokenView, type TokenManager } from '../../accounts/tokens.js';
import type { TokenOwner } from '../../accounts/token-policy.js';
import { PERMISSION_GROUPS, permissionGroupView } from '../../accounts/permission-groups.js';
import { readJsonObject } from '../body.js';
import { ok, okPage } from '../respond.js';
import { parseChoice, parsePaging } from '../paging.js';
import { requireAccount } from './dns-settings.js';

/** Routes of user and account API tokens. */
export function tokenRoutes(db: Kysely<Database>, clock: Clock): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const tokens = new TokensService(db, clock);
  const userOwner = (c: Context<ApiEnv>): TokenOwner => ({ kind: 'user', userId: c.get('user').id });
  const accountOwner = (c: Context<ApiEnv>): TokenOwner => ({ kind: 'account', accountId: requireAccount(c) });

  for (const [base, ownerOf] of [['/user/tokens', userOwner], ['/accounts/:account_id/tokens', accountOwner]] as const) {
    const manager = (c: Context<ApiEnv>): TokenManager => ({ owner: ownerOf(c), userId: c.get('user').id, accountIds: c.get('user').accountIds });

    app.get(`${base}/verify`, (c) => {
      const owner = ownerOf(c);
      const token = c.get('user').token;
      const matches = token !== undefined && (owner.kind === 'user' ? token.accountId === null : token.accountId === owner.accountId);
      if (!matches) throw new AppError(1000, 'Invalid API Token', 401);
      return tokens.get(owner, token.id, c.req.path).then((row) => {
        c.get('messages').push({ code: 10000, message: 'This API Token is valid and active' });
        return ok(c, {
          id: row.id,
          status: tokenStatus(row, clock.now()),
          ...(row.not_before !== null ? { not_before: row.not_before } : {}),
          ...(row.expires_on !== null ? { expires_on: row.expires_on } : {}),
        });
      });
    });

    app.get(`${base}/permission_groups`, (c) => {
      const forUser = ownerOf(c).kind === 'user'; // account tokens cannot hold user groups
      const name = c.req.query('name');
      const scope = c.req.query('scope');
      const view = PERMISSION_GROUPS
        .filter((g) => (name === undefined || g.name === name) && (scope === undefined || g.scope === scope) && (forUser || g.scope !== 'com.cloudflare.api.user'))
        .map(permissionGroupView);
      return okPage(c, view, 1, Math.max(view.length, 1), view.length);
    });

    app.get(base, async (c) => {
      const { page, perPage } = parsePaging(c.req.query('page'), c.req.query('per_page'), { defaultPerPage: 20, maxPerPage: 50 });
      const direction = parseChoice('direction', c.req.query('direction'), ['asc', 'desc'] as const, 'asc');
      const includeExpired = parseChoice('include_expired', c.req.query('include_expired'), ['true', 'false'] as const, 'false') === 'true';
      const { rows, total } = await tokens.list(ownerOf(c), { page, perPage, direction, includeExpired });
      return okPage(c, rows.map((r) => tokenView(r, clock.now())), page, perPage, total);
    });

    app.post(base, async (c) => {
      const { row, value } = await tokens.create(manager(c), await readJsonObject(c));
      return ok(c, { ...tokenView(row, clock.now()), value });
    });

    app.get(`${base}/:token_id`, async (c) => ok(c, tokenView(await tokens.get(ownerOf(c), c.req.param('token_id'), c.req.path), clock.now())));

    app.put(`${base}/:token_id`, async (c) => {
      const row = await tokens.update(manager(c), c.req.param('token_id'), await readJsonObject(c), c.req.path);
      return ok(c, tokenView(row, clock.now()));
    });

    app.delete(`${base}/:token_id`, async (c) => {
      await tokens.delete(ownerOf(c), c.req.param('token_id'), c.req.path);
      return ok(c, { id: c.req.param('token_id') });
    });

    app.put(`${base}/:token_id/value`, async (c) => ok(c, await tokens.roll(ownerOf(c), c.req.param('token_id'), c.req.path)));
  }
  return app;
}
