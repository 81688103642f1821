/**
 * SSL of a zone: universal SSL on or off (`/zones/:zone_id/ssl/universal/settings`), certificate packs (list,
 * get, order an advanced pack, delete one), verification (`/ssl/verification`); the certificate room is src/certs/.
 * Only the zone's account sees or changes them (requireZone: 404 + 7003 for anyone else); tokens need
 * SSL and Certificates Read / Write.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { requireZone } from '../zone-access.js';
import { readJsonObject } from '../body.js';
import { ok, okPage } from '../respond.js';
import { parsePaging } from '../paging.js';
import { AppError } from '../../shared/errors.js';
import { CERT_CODES } from '../../certs/codes.js';
import { packView, verificationView } from '../../certs/ssl-view.js';
import type { Certificates } from '../../certs/certificate-service.js';

const AUTHORITIES = ['google', 'lets_encrypt', 'ssl_com'];
const VALIDITY = [14, 30, 90, 365];
const METHODS = ['txt', 'http', 'email'];

function invalid(message: string): AppError {
  return new AppError(CERT_CODES.badBody, message, 400);
}

/** Routes of `/zones/:zone_id/ssl/…`. */
export function sslRoutes(deps: ApiDeps, certs: Certificates): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const store = certs.store;

  app.get('/zones/:zone_id/ssl/universal/settings', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, { enabled: (await store.universal(zone.id)).enabled });
  });

  app.patch('/zones/:zone_id/ssl/universal/settings', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw invalid('Invalid enabled: send true or false');
    if (typeof body.enabled === 'boolean') {
      await store.setUniversal(zone.id, body.enabled);
      await certs.changed();
    }
    return ok(c, { enabled: (await store.universal(zone.id)).enabled });
  });

  app.get('/zones/:zone_id/ssl/certificate_packs', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const paging = parsePaging(c.req.query('page'), c.req.query('per_page'), { defaultPerPage: 20, maxPerPage: 50 });
    const all = c.req.query('status') === 'all';
    const packs = (await store.packs(zone.id)).filter((p) => all || p.status === 'active');
    const certsByPack = await store.packCertificates(packs.map((p) => p.id));
    const now = deps.clock.now();
    const page = packs.slice((paging.page - 1) * paging.perPage, paging.page * paging.perPage);
    return okPage(c, page.map((p) => packView(p, certsByPack.get(p.id) ?? [], now)), paging.page, paging.perPage, packs.length);
  });

  app.post('/zones/:zone_id/ssl/certificate_packs/order', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    if (body.type !== 'advanced') throw invalid('Invalid type: only "advanced" packs can be ordered');
    const hosts = Array.isArray(body.hosts) ? body.hosts.map((h) => String(h).toLowerCase().replace(/\.$/, '')) : [];
    if (hosts.length === 0 || hosts.length > 50) throw invalid('Invalid hosts: send 1 to 50 host names');
    if (!hosts.includes(zone.name)) throw invalid(`Invalid hosts: the zone apex ${zone.name} must be among them`);
    const outside = hosts.find((h) => h !== zone.name && !h.endsWith(`.${zone.name}`));
    if (outside) throw invalid(`Invalid hosts: ${outside} is not in the zone ${zone.name}`);
    if (!METHODS.includes(String(body.validation_method))) throw invalid('Invalid validation_method: send txt, http or email');
    if (!VALIDITY.includes(Number(body.validity_days))) throw invalid('Invalid validity_days: send 14, 30, 90 or 365');
    if (!AUTHORITIES.includes(String(body.certificate_authority))) throw invalid('Invalid certificate_authority: send google, lets_encrypt or ssl_com');
    // Stratus validates by DNS-01 (its own DNS) whatever method is asked; the CA is the configured one
    const pack = (await store.ensurePack({ zoneId: zone.id, type: 'advanced', hosts: [...new Set(hosts)], authority: String(body.certificate_authority), validityDays: Number(body.validity_days) }))!; // an advanced pack is always made
    await certs.changed();
    return ok(c, packView(pack, [], deps.clock.now()));
  });

  app.get('/zones/:zone_id/ssl/certificate_packs/:pack_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const pack = await store.pack(zone.id, c.req.param('pack_id'));
    if (!pack) throw new AppError(CERT_CODES.packNotFound, 'Certificate pack not found.', 404);
    return ok(c, packView(pack, (await store.packCertificates([pack.id])).get(pack.id) ?? [], deps.clock.now()));
  });

  app.delete('/zones/:zone_id/ssl/certificate_packs/:pack_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const pack = await store.pack(zone.id, c.req.param('pack_id'));
    if (!pack) throw new AppError(CERT_CODES.packNotFound, 'Certificate pack not found.', 404);
    if (pack.type === 'universal') throw new AppError(CERT_CODES.universalPack, 'The universal certificate pack cannot be deleted; turn universal SSL off instead.', 400);
    await store.removePacks([pack.id]);
    await certs.changed();
    return ok(c, { id: pack.id });
  });

  app.get('/zones/:zone_id/ssl/verification', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, verificationView(zone.name, await store.packs(zone.id)));
  });
  return app;
}
