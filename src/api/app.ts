/**
 * The `/client/v4` HTTP edge: request id, api date, authentication, the route modules, and the translation of
 * every error into the v4 envelope. Routes live in `routes/`, one file per resource.
 */
import { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import type { ApiEnv } from './context.js';
import type { ApiDeps } from './deps.js';
import { apiDateMiddleware } from './api-date.js';
import { errorEntries, failureBody } from './envelope.js';
import { AppError } from '../shared/errors.js';
import { faultResponse } from './fault-response.js';
import { RateLimitedError } from '../limits/rate-limited.js';
import { IncidentLog } from '../shared/incident-log.js';
import { authMiddleware } from './auth.js';
import { headerBytesMiddleware } from './middleware/header-bytes.js';
import { bodyLimitMiddleware } from './body-limit.js';
import type { ApiServices } from './context.js';
import { ZonesService } from '../zones/zones-service.js';
import { NameServerAssignments } from '../zones/name-server-assignments.js';
import { RecordsService } from '../zones/records-service.js';
import { accountRoutes } from './routes/accounts.js';
import { zoneRoutes } from './routes/zones.js';
import { tokenRoutes } from './routes/tokens.js';
import { userRoutes } from './routes/user.js';
import { dnsRecordRoutes } from './routes/dns-records.js';
import { registerDeprecationRoutes } from './routes/deprecation-schedule.js';
import { recordsBatchRoutes } from './routes/records-batch.js';
import { recordsImportExportRoutes } from './routes/records-import-export.js';
import { zoneOwnershipRoutes } from './routes/zone-ownership.js';
import { NamePolicy } from '../zones/name-policy.js';
import { ZoneHolds } from '../zones/zone-holds.js';
import { listenerNames } from '../config/reserved-names.js';
import { noteApiRequest } from './access-note.js';
import { r2Routes } from './r2/routes.js';
import { ScriptsService } from '../scripts/scripts-service.js';
import { RoutesService } from '../scripts/routes-service.js';
import { SubdomainsService } from '../scripts/subdomains.js';
import { workersScriptRoutes } from './routes/workers-scripts.js';
import { workersVersionRoutes } from './routes/workers-versions.js';
import { workersAccountRoutes } from './routes/workers-account.js';
import { workersZoneRoutes } from './routes/workers-routes.js';
import { dnssecRoutes } from './routes/dnssec.js';
import { SettingsStore } from '../zones/settings/settings-store.js';
import { DnssecService } from '../zones/dnssec/dnssec-service.js';
import { dashboardRoutes } from './dashboard-site.js';
import { secondaryDnsRoutes } from './routes/secondary-dns.js';
import { sslRoutes } from './routes/ssl.js';
import { customCertificateRoutes } from './routes/custom-certificates.js';
import { dnsQueryRoutes } from './dns-query.js';

/** The v4 path prefix. */
export const API_PREFIX = '/client/v4';

/** Builds the v4 API application (mount it at the server root; its routes carry the prefix). */
export function createApiApp(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const api = new Hono<ApiEnv>();

  api.use('*', async (c, next) => {
    c.set('requestId', randomUUID());
    c.set('messages', []);
    await next();
    noteApiRequest(c);
  });
  api.use('*', headerBytesMiddleware()); // before anything reads a header
  api.use('*', bodyLimitMiddleware(deps.config.apiBodyLimit)); // before authentication: an oversized body is never read
  api.use('*', apiDateMiddleware(deps.config.apiDate, deps.clock));
  const services = createServices(deps);
  api.use('*', async (c, next) => {
    c.set('services', services);
    await next();
  });
  registerDeprecationRoutes(api, deps); // before auth: /deprecations is public; lifecycle routes authenticate themselves
  api.use('*', authMiddleware(deps.db, deps.clock, deps.limits));

  api.route('/', accountRoutes(deps.db, deps.clock));
  api.route('/', userRoutes(deps.db));
  api.route('/', tokenRoutes(deps.db, deps.clock));
  api.route('/', zoneRoutes(deps));
  api.route('/', zoneOwnershipRoutes());
  if (deps.store) api.route('/', r2Routes(deps.store, deps.tempCredentials, deps.edge.domains));
  api.route('/', workersAccountRoutes());
  api.route('/', workersVersionRoutes(deps.db, deps.clock));
  api.route('/', workersScriptRoutes(deps.clock));
  api.route('/', workersZoneRoutes());
  // Routes of other resources under /zones/:zone_id/… go here, before the DNS record routes: GET
  // …/dns_records/:dns_record_id would otherwise match their fixed words (export, usage, …).
  api.route('/', dnssecRoutes(deps));
  api.route('/', secondaryDnsRoutes(deps));
  if (deps.certificates) {
    api.route('/', sslRoutes(deps, deps.certificates));
    api.route('/', customCertificateRoutes(deps, deps.certificates));
  }
  api.route('/', recordsBatchRoutes(deps.config.plan.recordsPerBatch));
  api.route('/', recordsImportExportRoutes(() => deps.clock.now()));
  api.route('/', dnsRecordRoutes());

  app.route(API_PREFIX, api);
  if (deps.dnsQuery) app.route('/', dnsQueryRoutes(deps.dnsQuery, deps.limits));
  if (deps.config.dashboard) app.route('/', dashboardRoutes(undefined, deps.s3Listener));

  app.notFound((c) => c.json(failureBody([{ code: 7000, message: 'No route for that URI' }]), 404));
  const unexpected = new IncidentLog(deps.logger.child({ component: 'v4-api' }));
  app.onError((err, c) => {
    const fault = faultResponse(err);
    if (fault) return fault;
    if (err instanceof RateLimitedError) return c.json(failureBody(errorEntries(err)), 429, err.headers);
    if (err instanceof AppError) {
      return c.json(failureBody(errorEntries(err)), err.status as 400);
    }
    unexpected.failure(`unhandled error in v4 API: ${err.message}`, err, 'unhandled error in v4 API');
    return c.json(failureBody([{ code: 10000, message: 'Internal Server Error' }]), 500);
  });
  return app;
}

/** The services behind the v4 routes. */
export function createServices(deps: ApiDeps): ApiServices {
  const names = new NamePolicy({ nameservers: [...deps.config.nameservers, ...deps.config.nameServerPool], listenerNames: listenerNames(deps.config), allow: deps.config.zoneNameAllow });
  const assignments = deps.nameServers ?? new NameServerAssignments(deps.db, deps.clock, deps.config.nameservers, deps.config.nameServerPool);
  const zones = new ZonesService(deps.db, deps.clock, deps.changeFeed, deps.config.nameservers, { names, assignments });
  const onNsChange = (zone: { name: string }) => zones.ownership.reconsiderBelow(zone.name, true);
  const scripts = new ScriptsService({ db: deps.db, clock: deps.clock, ...deps.edge });
  return {
    zones,
    records: new RecordsService(deps.db, deps.clock, deps.changeFeed, deps.config.plan, deps.config.serviceRanges, onNsChange),
    holds: new ZoneHolds(deps.db, deps.clock),
    scripts,
    workerRoutes: new RoutesService(deps.db, deps.clock, scripts),
    subdomains: new SubdomainsService(deps.db, deps.clock, scripts),
    settings: new SettingsStore(deps.db, deps.changeFeed),
    dnssec: new DnssecService(deps.db, deps.changeFeed, deps.edge.box, deps.clock),
  };
}
