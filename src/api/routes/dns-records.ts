/**
 * `/zones/:zone_id/dns_records`: create, list, get, patch, overwrite (PUT), delete. Mount these routes after
 * any other `/zones/:zone_id/dns_records/<word>` route (export, batch, …), since `GET …/:dns_record_id` would
 * match those words. Validation errors of create/update are shaped by api date: before 2024-10-01 wrapped as
 * `{code: 1004, message: 'DNS Validation Error', error_chain: [root causes]}`, from then the root causes.
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { DnsRecord } from '../../dns/record.js';
import { AppError } from '../../shared/errors.js';
import { oldBehaviourApplies } from '../../deprecation/schedule.js';
import { RecordValidationError } from '../../zones/record-body.js';
import { parseRecordFilters } from '../../zones/record-filters.js';
import type { RecordRequestContext } from '../../zones/records-service.js';
import { readJsonObject } from '../body.js';
import { recordView } from '../record-view.js';
import { ok, okPage } from '../respond.js';
import { requireZoneRef } from '../zone-access.js';
import { announceDeprecation } from '../middleware/deprecation.js';
import { noteMissingAddressRecord } from '../address-notice.js';

type C = Context<ApiEnv>;

/** Runs a record write; adds warnings to `messages`; wraps validation errors for old api dates. */
async function write(c: C, fn: (ctx: RecordRequestContext) => Promise<DnsRecord>, zoneName: string): Promise<Response> {
  const ctx: RecordRequestContext = { apiDate: c.get('apiDate'), warnings: [] };
  try {
    const record = await fn(ctx);
    c.get('messages').push(...ctx.warnings);
    return ok(c, recordView(record, zoneName, ctx.apiDate));
  } catch (err) {
    if (err instanceof RecordValidationError && oldBehaviourApplies('dns-records-error-chain', ctx.apiDate)) {
      throw new AppError(1004, 'DNS Validation Error', 400, { chain: err.all().map((e) => ({ code: e.code, message: e.message })) });
    }
    throw err;
  }
}

/** Routes of DNS records. */
export function dnsRecordRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const base = '/zones/:zone_id/dns_records';

  app.post(base, async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    return write(c, (ctx) => c.get('services').records.create(zone, body, ctx), zone.name);
  });
  app.get(base, async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    const apiDate = c.get('apiDate');
    const query = parseRecordFilters(c.req.queries(), zone.name, apiDate);
    for (const d of query.deprecated ?? []) announceDeprecation(c, d.id, d.part);
    const { records, total } = await c.get('services').records.list(zone, query);
    await noteMissingAddressRecord(c, zone, records);
    return okPage(c, records.map((r) => recordView(r, zone.name, apiDate)), query.page, query.perPage, total);
  });
  app.get(`${base}/:dns_record_id`, async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    const record = await c.get('services').records.get(zone, c.req.param('dns_record_id'));
    return ok(c, recordView(record, zone.name, c.get('apiDate')));
  });
  app.patch(`${base}/:dns_record_id`, async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    return write(c, (ctx) => c.get('services').records.patch(zone, c.req.param('dns_record_id'), body, ctx), zone.name);
  });
  app.put(`${base}/:dns_record_id`, async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    return write(c, (ctx) => c.get('services').records.overwrite(zone, c.req.param('dns_record_id'), body, ctx), zone.name);
  });
  app.delete(`${base}/:dns_record_id`, async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    await readJsonObject(c).catch(() => undefined); // any body (none, {}, empty JSON) is accepted and ignored
    const id = c.req.param('dns_record_id');
    await c.get('services').records.delete(zone, id);
    return ok(c, { id });
  });
  return app;
}
