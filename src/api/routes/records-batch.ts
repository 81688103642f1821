/**
 * `POST /zones/:zone_id/dns_records/batch` (reference dns-api.md §6.1): the body's deletes, patches, puts and
 * posts in one transaction (zones/records-batch.ts); the result lists the records of each, shaped for the
 * api date like every record response. Validation errors are wrapped as 1004 + `error_chain` before
 * 2024-10-01, as for single writes.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import { oldBehaviourApplies } from '../../deprecation/schedule.js';
import { AppError } from '../../shared/errors.js';
import { RecordValidationError } from '../../zones/record-body.js';
import { parseBatch, runBatch } from '../../zones/records-batch.js';
import type { RecordRequestContext } from '../../zones/records-service.js';
import { readJsonObject } from '../body.js';
import { recordView } from '../record-view.js';
import { ok } from '../respond.js';
import { requireZone } from '../zone-access.js';

/** The batch route. */
export function recordsBatchRoutes(maxOperations: number): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/zones/:zone_id/dns_records/batch', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const batch = parseBatch(await readJsonObject(c), maxOperations);
    const ctx: RecordRequestContext = { apiDate: c.get('apiDate'), warnings: [] };
    try {
      const result = await runBatch(c.get('services').records, zone, batch, ctx);
      c.get('messages').push(...ctx.warnings);
      const view = (list: typeof result.posts) => list.map((r) => recordView(r, zone.name, ctx.apiDate));
      return ok(c, { deletes: view(result.deletes), patches: view(result.patches), puts: view(result.puts), posts: view(result.posts) });
    } catch (err) {
      if (err instanceof RecordValidationError && oldBehaviourApplies('dns-records-error-chain', ctx.apiDate)) {
        throw new AppError(1004, 'DNS Validation Error', 400, { chain: err.all().map((e) => ({ code: e.code, message: e.message })) });
      }
      throw err;
    }
  });
  return app;
}
