/**
 * Versions, deployments and secrets of a script:
 * - `POST …/versions` (multipart, as the upload), `GET …/versions` (`{items}`, newest first, paged;
 *   `deployable` accepted), `GET …/versions/:version_id`;
 * - `GET …/deployments` (`{deployments}`, newest first), `POST …/deployments` (`{strategy, versions,
 *   annotations}`), `GET …/deployments/:deployment_id`;
 * - `PUT …/secrets` (`{name, text, type: "secret_text"}`), `GET …/secrets`, `GET|DELETE …/secrets/:name`
 *   (`url_encoded=true` accepted): a secret change is a copy of the deployed latest version, deployed at once.
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { parsePaging } from '../paging.js';
import { pageInfo, successBody } from '../envelope.js';
import { AppError } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import { WORKERS_CODES } from '../../scripts/errors.js';
import { UUID } from '../../scripts/scripts-service.js';
import { deploymentView, versionListItem, versionView } from '../../scripts/views.js';
import { countVersions, findDeployment, listDeploymentRows, listVersionRows } from '../../scripts/script-rows.js';
import { actorOf, requireWorkersAccount } from '../workers-access.js';
import { readUpload, uploadLimit } from './workers-scripts.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

const SCRIPT = '/accounts/:account_id/workers/scripts/:script_name';

/** The routes. */
export function workersVersionRoutes(db: Kysely<Database>, clock: Clock): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const svc = (c: Context<ApiEnv>) => c.get('services').scripts;
  const script = async (c: Context<ApiEnv>) => svc(c).require(requireWorkersAccount(c), c.req.param('script_name')!);

  app.post(`${SCRIPT}/versions`, uploadLimit, async (c) => {
    const accountId = requireWorkersAccount(c);
    const upload = await readUpload(c, clock);
    const { script: s, version } = await svc(c).createVersion(actorOf(c), accountId, c.req.param('script_name'), upload);
    return ok(c, { ...versionView(s, version), startup_time_ms: 0 });
  });
  app.get(`${SCRIPT}/versions`, async (c) => {
    const s = await script(c);
    const { page, perPage } = parsePaging(c.req.query('page'), c.req.query('per_page'), { defaultPerPage: 10, maxPerPage: 100 });
    const rows = await listVersionRows(db, s.id, (page - 1) * perPage, perPage);
    const total = await countVersions(db, s.id);
    return c.json(successBody({ items: rows.map(versionListItem) }, c.get('messages'), pageInfo(page, perPage, rows.length, total)));
  });
  app.get(`${SCRIPT}/versions/:version_id`, async (c) => {
    const s = await script(c);
    return ok(c, versionView(s, await svc(c).version(s, c.req.param('version_id'))));
  });

  app.get(`${SCRIPT}/deployments`, async (c) => {
    const s = await script(c);
    return ok(c, { deployments: (await listDeploymentRows(db, s.id, 10)).map(deploymentView) });
  });
  app.post(`${SCRIPT}/deployments`, async (c) => {
    const accountId = requireWorkersAccount(c);
    return ok(c, deploymentView(await svc(c).deploy(actorOf(c), accountId, c.req.param('script_name'), await readJsonObject(c))));
  });
  app.get(`${SCRIPT}/deployments/:deployment_id`, async (c) => {
    const s = await script(c);
    const id = c.req.param('deployment_id');
    const found = UUID.test(id) ? await findDeployment(db, s.id, id) : undefined;
    if (!found) throw new AppError(WORKERS_CODES.scriptNotFound, 'Deployment not found.', 404);
    return ok(c, deploymentView(found));
  });

  app.put(`${SCRIPT}/secrets`, async (c) => {
    const accountId = requireWorkersAccount(c);
    const body = await readJsonObject(c);
    if (typeof body.name !== 'string' || body.name === '' || body.name.length > 255) throw new AppError(WORKERS_CODES.validation, 'A secret needs a "name" of 1 to 255 characters', 400);
    if (body.type !== undefined && body.type !== 'secret_text') throw new AppError(WORKERS_CODES.validation, `Secrets of type ${JSON.stringify(body.type)} are not supported by Stratus: use "secret_text"`, 400);
    if (typeof body.text !== 'string' || Buffer.byteLength(body.text) > 5 * 1024) throw new AppError(WORKERS_CODES.validation, 'A secret needs a "text" of at most 5120 bytes', 400);
    await svc(c).changeSecret(actorOf(c), accountId, c.req.param('script_name'), body.name, body.text);
    return ok(c, { name: body.name, type: 'secret_text' });
  });
  app.get(`${SCRIPT}/secrets`, async (c) => ok(c, await svc(c).secrets(requireWorkersAccount(c), c.req.param('script_name'))));
  const secretName = (c: Context<ApiEnv>) => c.req.param('secret_name')!; // Hono decodes the path parameter
  app.get(`${SCRIPT}/secrets/:secret_name`, async (c) => {
    const found = (await svc(c).secrets(requireWorkersAccount(c), c.req.param('script_name'))).find((s) => s.name === secretName(c));
    if (!found) throw new AppError(WORKERS_CODES.secretNotFound, `Secret ${secretName(c)} does not exist on this Worker.`, 404);
    return ok(c, found);
  });
  app.delete(`${SCRIPT}/secrets/:secret_name`, async (c) => {
    const accountId = requireWorkersAccount(c);
    await svc(c).changeSecret(actorOf(c), accountId, c.req.param('script_name'), secretName(c), null);
    return ok(c, null);
  });
  return app;
}
