/**
 * Public hostnames of a bucket, as production's R2 API shapes them:
 * - `GET|PUT …/r2/buckets/:bucket_name/domains/managed` (`{enabled}`): the development hostname
 *   `pub-<id>.<--public-domain>` → `{bucketId, domain, enabled}`;
 * - `GET|POST …/domains/custom`, `GET|PUT|DELETE …/domains/custom/:domain`: a hostname in one of the account's
 *   active zones (`{domain, zoneId, enabled, minTLS}`; the zone must be the most specific active zone holding the
 *   name, as production requires a hostname of an active zone of the bucket's account; another account's zone is
 *   answered like no zone at all), created with a proxied CNAME record of that name pointing
 *   at the development hostname (production adds a proxied record of its own for it); deleting the domain
 *   deletes that record.
 * The edge serves GET and HEAD of objects on enabled hostnames (src/runtime/public-bucket.ts).
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { BucketStore } from '../../store/index.js';
import type { BucketDomain, BucketDomains } from '../../scripts/bucket-domains.js';
import { AppError } from '../../shared/errors.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { accountBuckets, bucketParam } from './scope.js';
import { invalidArgument, noSuchBucket, R2_CODES } from './errors.js';

const MIN_TLS = ['1.0', '1.1', '1.2', '1.3'];

/** The domain routes of buckets. */
export function r2DomainRoutes(store: BucketStore, domains: BucketDomains): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const base = '/accounts/:account_id/r2/buckets/:bucket_name/domains';

  /** The path's account and bucket, which must exist. */
  const bucketOf = async (c: Context<ApiEnv>) => {
    const { accountId, buckets } = accountBuckets(c, store);
    const bucket = bucketParam(c);
    const info = await buckets.bucketInfo(bucket);
    if (!info) throw noSuchBucket();
    return { accountId, bucket, created: info.created.toISOString() };
  };
  const managedView = (accountId: string, bucket: string, enabled: boolean) =>
    ({ bucketId: domains.managedHostname(accountId, bucket).split('.')[0]!.slice('pub-'.length), domain: domains.managedHostname(accountId, bucket), enabled });
  const customView = async (c: Context<ApiEnv>, d: BucketDomain) => {
    const zone = await c.get('services').zones.ref(c.get('user'), d.zone_id ?? '', c.req.path).catch(() => undefined);
    const active = zone !== undefined && zone.account_id === d.account_id && (await domains.activeZoneOf(d.hostname))?.id === zone.id;
    return { domain: d.hostname, enabled: d.enabled === 1, status: active ? { ownership: 'active', ssl: 'active' } : { ownership: 'pending', ssl: 'pending' }, minTLS: d.min_tls ?? '1.0', zoneId: d.zone_id, zoneName: zone?.name ?? null };
  };
  const customOf = async (c: Context<ApiEnv>) => {
    const { accountId, bucket } = await bucketOf(c);
    const hostname = (c.req.param('domain') ?? '').toLowerCase().replace(/\.$/, '');
    const row = (await domains.list(accountId, bucket, 'custom')).find((d) => d.hostname === hostname);
    if (!row) throw new AppError(R2_CODES.noSuchDomain, 'The specified custom domain does not exist for this bucket.', 404);
    return { accountId, bucket, hostname, row };
  };

  app.get(`${base}/managed`, async (c) => {
    const { accountId, bucket, created } = await bucketOf(c);
    const row = (await domains.list(accountId, bucket, 'managed'))[0];
    return ok(c, managedView(accountId, bucket, row?.enabled === 1 && row.bucket_created === created));
  });
  app.put(`${base}/managed`, async (c) => {
    const { accountId, bucket, created } = await bucketOf(c);
    const body = await readJsonObject(c);
    if (typeof body.enabled !== 'boolean') throw invalidArgument('enabled must be true or false');
    await domains.setManaged(accountId, bucket, created, body.enabled);
    return ok(c, managedView(accountId, bucket, body.enabled));
  });

  app.get(`${base}/custom`, async (c) => {
    const { accountId, bucket } = await bucketOf(c);
    const rows = await domains.list(accountId, bucket, 'custom');
    return ok(c, { domains: await Promise.all(rows.map((d) => customView(c, d))) });
  });
  app.post(`${base}/custom`, async (c) => {
    const { accountId, bucket, created } = await bucketOf(c);
    const body = await readJsonObject(c);
    const problems: string[] = [];
    if (typeof body.domain !== 'string' || body.domain === '') problems.push('domain must be a hostname');
    if (typeof body.zoneId !== 'string' || body.zoneId === '') problems.push('zoneId must name a zone of the account');
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') problems.push('enabled must be true or false');
    if (body.minTLS !== undefined && !MIN_TLS.includes(String(body.minTLS))) problems.push(`minTLS must be one of ${MIN_TLS.join(', ')}`);
    if (problems.length > 0) throw invalidArgument(problems.join('; '));
    const hostname = String(body.domain).toLowerCase().replace(/\.$/, '');
    // a zone of another account (or of the caller's other accounts) is one the bucket's account does not have
    const zone = await c.get('services').zones.ref(c.get('user'), String(body.zoneId), c.req.path).catch(() => undefined);
    if (!zone || zone.account_id !== accountId) throw invalidArgument(`zoneId ${JSON.stringify(body.zoneId)} is not a zone of this account`);
    const notInZone = () => invalidArgument(`${hostname} is not a hostname of the zone ${zone.name}`);
    if (hostname !== zone.name && !hostname.endsWith(`.${zone.name}`)) throw notInZone();
    if ((await domains.activeZoneOf(hostname))?.id !== zone.id) {
      throw (await domains.zoneActive(zone.id)) ? notInZone() : invalidArgument(`The zone ${zone.name} is not active: a custom domain must be a hostname of an active zone of this account`);
    }
    const enabled = body.enabled !== false;
    const minTls = body.minTLS === undefined ? null : String(body.minTLS);
    if (await domains.held(hostname)) throw domainTaken(hostname);
    const record = await c.get('services').records.create(zone, { type: 'CNAME', name: hostname, content: domains.managedHostname(accountId, bucket), proxied: true, ttl: 1, comment: `public hostname of bucket ${bucket}` }, { apiDate: c.get('apiDate'), warnings: [] });
    if (!(await domains.addCustom({ hostname, account_id: accountId, bucket, bucket_created: created, zone_id: zone.id, enabled: enabled ? 1 : 0, min_tls: minTls }))) {
      await c.get('services').records.delete(zone, record.id);
      throw domainTaken(hostname);
    }
    return ok(c, { domain: hostname, enabled, minTLS: minTls ?? '1.0' });
  });
  app.get(`${base}/custom/:domain`, async (c) => {
    const { row } = await customOf(c);
    return ok(c, await customView(c, row));
  });
  app.put(`${base}/custom/:domain`, async (c) => {
    const { accountId, bucket, hostname, row } = await customOf(c);
    const body = await readJsonObject(c);
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw invalidArgument('enabled must be true or false');
    if (body.minTLS !== undefined && !MIN_TLS.includes(String(body.minTLS))) throw invalidArgument(`minTLS must be one of ${MIN_TLS.join(', ')}`);
    const change = { ...(body.enabled !== undefined ? { enabled: body.enabled as boolean } : {}), ...(body.minTLS !== undefined ? { minTls: String(body.minTLS) } : {}) };
    await domains.updateCustom(accountId, bucket, hostname, change);
    return ok(c, { domain: hostname, enabled: change.enabled ?? row.enabled === 1, minTLS: change.minTls ?? row.min_tls ?? '1.0' });
  });
  app.delete(`${base}/custom/:domain`, async (c) => {
    const { accountId, bucket, hostname } = await customOf(c);
    const removed = await domains.removeCustom(accountId, bucket, hostname);
    if (removed?.zone_id) {
      const zone = await c.get('services').zones.ref(c.get('user'), removed.zone_id, c.req.path).catch(() => undefined);
      const db = c.get('services').records;
      if (zone) await domains.recordsOf(zone.id, hostname, domains.managedHostname(accountId, bucket)).then((ids) => Promise.all(ids.map((id) => db.delete(zone, id))));
    }
    return ok(c, { domain: hostname });
  });
  return app;
}

function domainTaken(hostname: string): AppError {
  return new AppError(R2_CODES.domainInUse, `The hostname ${hostname} is already a public hostname of a bucket.`, 409);
}
