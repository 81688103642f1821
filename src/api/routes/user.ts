/**
 * `GET /user`: the authenticated user (its id is the subject of `com.cloudflare.api.user.<id>` token
 * resources). Stratus keeps no profile, so the personal fields are null and the flags false.
 */
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import type { ApiEnv } from '../context.js';
import type { Database } from '../../db/schema.js';
import { ok } from '../respond.js';
import { userProfile } from '../../accounts/users.js';

/** Routes of the user. */
export function userRoutes(db: Kysely<Database>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/user', async (c) => {
    const user = c.get('user');
    const row = await userProfile(db, user.id);
    return ok(c, {
      id: row.id, email: row.email, username: row.email, first_name: null, last_name: null, telephone: null, country: null, zipcode: null,
      two_factor_authentication_enabled: false, two_factor_authentication_locked: false, suspended: false,
      has_pro_zones: false, has_business_zones: false, has_enterprise_zones: false, betas: [], organizations: [],
      created_on: row.created_on, modified_on: row.created_on,
    });
  });
  return app;
}
