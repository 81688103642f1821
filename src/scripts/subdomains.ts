/**
 * The account's workers subdomain (`GET|PUT|DELETE /accounts/:id/workers/subdomain`): one DNS label per
 * account, unique across accounts, under which `<script>.<subdomain>.<--workers-domain>` serves scripts
 * whose subdomain is enabled. Without one, `GET` answers 404 10007, which wrangler reads as "register one".
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { isoTimestamp } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { WORKERS_CODES } from './errors.js';
import type { ScriptsService } from './scripts-service.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The service. */
export class SubdomainsService {
  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock, private readonly scripts: ScriptsService) {}

  /** The account's subdomain, or undefined. */
  async find(accountId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('workers_subdomains').select('subdomain').where('account_id', '=', accountId).executeTakeFirst();
    return row?.subdomain;
  }

  /** The account's subdomain, or 404 10007. */
  async get(accountId: string): Promise<string> {
    const found = await this.find(accountId);
    if (found === undefined) throw new AppError(WORKERS_CODES.scriptNotFound, 'This account does not have a workers subdomain yet. Create one with PUT /accounts/:account_id/workers/subdomain.', 404);
    return found;
  }

  /** True when no other account holds `subdomain` (throws for a name that is not a valid label). */
  async available(accountId: string, subdomain: string): Promise<boolean> {
    checkLabel(subdomain);
    const row = await this.db.selectFrom('workers_subdomains').select('account_id').where('subdomain', '=', subdomain).executeTakeFirst();
    return row === undefined || row.account_id === accountId;
  }

  /** Sets (or renames) the account's subdomain. */
  async put(accountId: string, body: Record<string, unknown>): Promise<string> {
    const subdomain = typeof body.subdomain === 'string' ? body.subdomain.trim().toLowerCase() : '';
    if (!(await this.available(accountId, subdomain))) throw unavailable(subdomain);
    const now = isoTimestamp(this.clock.now());
    try {
      await this.scripts.commit(async (trx) => {
        await trx.deleteFrom('workers_subdomains').where('account_id', '=', accountId).execute();
        await trx.insertInto('workers_subdomains').values({ account_id: accountId, subdomain, created_on: now }).execute();
      });
    } catch (err) {
      if (await this.available(accountId, subdomain)) throw err;
      throw unavailable(subdomain); // another account took it in the meantime (unique constraint)
    }
    return subdomain;
  }

  /** Removes the account's subdomain. */
  async delete(accountId: string): Promise<void> {
    await this.get(accountId);
    await this.scripts.commit((trx) => trx.deleteFrom('workers_subdomains').where('account_id', '=', accountId).execute());
  }
}

function checkLabel(subdomain: string): void {
  if (!LABEL.test(subdomain)) throw new AppError(WORKERS_CODES.invalidSubdomain, `Invalid subdomain ${JSON.stringify(subdomain)}: use 1 to 63 lowercase letters, digits and "-", not starting or ending with "-"`, 400);
}

function unavailable(subdomain: string): AppError {
  return new AppError(WORKERS_CODES.subdomainUnavailable, `Subdomain ${subdomain} is unavailable.`, 400);
}
