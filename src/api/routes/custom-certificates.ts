/**
 * Custom certificates of a zone (`/zones/:zone_id/custom_certificates`): upload a PEM certificate chain and its
 * key (sealed at rest), list, get, change (new chain and key, `bundle_method`, `priority`), reorder
 * (`PUT …/prioritize`), delete. A custom certificate wins over the universal one for the names it covers (the
 * lowest `priority` first). Only the zone's account sees them (404 + 7003 for anyone else); tokens need
 * SSL and Certificates Read / Write.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { requireZone } from '../zone-access.js';
import { readJson, readJsonObject } from '../body.js';
import { ok, okPage } from '../respond.js';
import { parsePaging } from '../paging.js';
import { AppError } from '../../shared/errors.js';
import { CERT_CODES } from '../../certs/codes.js';
import { customCertificateView } from '../../certs/ssl-view.js';
import { describeCertificate, keyMatches, readPrivateKey } from '../../certs/x509.js';
import type { Certificates } from '../../certs/certificate-service.js';

const BUNDLE_METHODS = ['ubiquitous', 'optimal', 'force'];

function invalid(message: string): AppError {
  return new AppError(CERT_CODES.badBody, message, 400);
}

/** Checks a chain and key for the zone; returns them trimmed. */
function checkPair(zoneName: string, certificate: unknown, key: unknown): { chainPem: string; keyPem: string } {
  if (typeof certificate !== 'string' || typeof key !== 'string') throw new AppError(CERT_CODES.badCertificate, 'Send "certificate" and "private_key" as PEM text', 400);
  let hosts: string[];
  try {
    hosts = describeCertificate(certificate).hosts;
    readPrivateKey(key);
  } catch (err) {
    throw new AppError(CERT_CODES.badCertificate, `The certificate or private key could not be read: ${(err as Error).message}`, 400);
  }
  if (!keyMatches(certificate, key)) throw new AppError(CERT_CODES.badCertificate, 'The private key is not the certificate\'s', 400);
  const inZone = (h: string): boolean => { const n = h.replace(/^\*\./, ''); return n === zoneName || n.endsWith(`.${zoneName}`); };
  if (!hosts.some(inZone)) throw new AppError(CERT_CODES.foreignCertificate, 'The certificate covers no name of this zone.', 400);
  return { chainPem: certificate.trim() + '\n', keyPem: key.trim() + '\n' };
}

function priorityOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1_000_000) throw invalid('Invalid priority: send a whole number from 0');
  return value;
}

function bundleOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !BUNDLE_METHODS.includes(value)) throw invalid('Invalid bundle_method: send ubiquitous, optimal or force');
  return value;
}

/** Routes of `/zones/:zone_id/custom_certificates`. */
export function customCertificateRoutes(deps: ApiDeps, certs: Certificates): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const store = certs.store;
  const notFound = (): AppError => new AppError(CERT_CODES.customNotFound, 'Custom certificate not found.', 404);

  app.post('/zones/:zone_id/custom_certificates', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    const pair = checkPair(zone.name, body.certificate, body.private_key);
    const row = await store.addCustom(zone.id, pair.chainPem, pair.keyPem, priorityOf(body.priority) ?? 0, bundleOf(body.bundle_method) ?? 'ubiquitous');
    await certs.changed();
    return ok(c, customCertificateView(row, deps.clock.now()));
  });

  app.get('/zones/:zone_id/custom_certificates', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const paging = parsePaging(c.req.query('page'), c.req.query('per_page'), { defaultPerPage: 20, maxPerPage: 50 });
    const rows = await store.customs(zone.id);
    const now = deps.clock.now();
    const page = rows.slice((paging.page - 1) * paging.perPage, paging.page * paging.perPage);
    return okPage(c, page.map((r) => customCertificateView(r, now)), paging.page, paging.perPage, rows.length);
  });

  app.put('/zones/:zone_id/custom_certificates/prioritize', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const body = await readJson(c) as { certificates?: unknown };
    if (!Array.isArray(body?.certificates)) throw invalid('Invalid certificates: send [{"id": …, "priority": …}]');
    for (const item of body.certificates as Array<{ id?: unknown; priority?: unknown }>) {
      if (typeof item?.id !== 'string') throw invalid('Invalid certificates: each needs an "id"');
      const priority = priorityOf(item.priority);
      if (!(await store.updateCustom(zone.id, item.id, { ...(priority !== undefined ? { priority } : {}) }))) throw notFound();
    }
    await certs.changed();
    const now = deps.clock.now();
    return ok(c, (await store.customs(zone.id)).map((r) => customCertificateView(r, now)));
  });

  app.get('/zones/:zone_id/custom_certificates/:cert_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const row = await store.custom(zone.id, c.req.param('cert_id'));
    if (!row) throw notFound();
    return ok(c, customCertificateView(row, deps.clock.now()));
  });

  app.patch('/zones/:zone_id/custom_certificates/:cert_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    if (!(await store.custom(zone.id, c.req.param('cert_id')))) throw notFound();
    const pair = body.certificate !== undefined || body.private_key !== undefined ? checkPair(zone.name, body.certificate, body.private_key) : undefined;
    const priority = priorityOf(body.priority);
    const bundleMethod = bundleOf(body.bundle_method);
    const row = await store.updateCustom(zone.id, c.req.param('cert_id'), {
      ...(pair ?? {}), ...(priority !== undefined ? { priority } : {}), ...(bundleMethod !== undefined ? { bundleMethod } : {}),
    });
    if (!row) throw notFound();
    await certs.changed();
    return ok(c, customCertificateView(row, deps.clock.now()));
  });

  app.delete('/zones/:zone_id/custom_certificates/:cert_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    if (!(await store.deleteCustom(zone.id, c.req.param('cert_id')))) throw notFound();
    await certs.changed();
    return ok(c, { id: c.req.param('cert_id') });
  });
  return app;
}
