/**
 * Scripts of an account (`/accounts/:account_id/workers/scripts…` and the `services` view wrangler reads):
 * list, upload (multipart), content, delete, settings, script-settings, the subdomain toggle and the
 * script's routes. Versions, deployments and secrets are in workers-versions.ts.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiEnv } from '../context.js';
import { readJsonObject, readJson } from '../body.js';
import { ok } from '../respond.js';
import { errorEntries, failureBody } from '../envelope.js';
import { AppError } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import { MAX_SCRIPT_BYTES, bracketed, moduleMimeType, parseUpload, readMetadata, type ParsedUpload } from '../../scripts/upload.js';
import { WORKERS_CODES, invalidUpload } from '../../scripts/errors.js';
import { scriptView, settingsView } from '../../scripts/views.js';
import type { StoredLimits } from '../../scripts/limits.js';
import { routeView } from '../../scripts/routes-service.js';
import { actorOf, requireWorkersAccount, latestCompatibilityDate } from '../workers-access.js';

const SCRIPT = '/accounts/:account_id/workers/scripts/:script_name';

/** Multipart bodies larger than the module limit (plus framing) are cut off while streaming. */
export const uploadLimit = bodyLimit({
  maxSize: MAX_SCRIPT_BYTES + 1024 * 1024,
  onError: (c) => c.json(failureBody(errorEntries(new AppError(WORKERS_CODES.tooLarge, `Your Worker exceeded the size limit of ${MAX_SCRIPT_BYTES / 1024 / 1024} MiB`, 413))), 413, { connection: 'close' }),
});

/**
 * Reads a script upload body. The official SDK (7.x) sends its multipart body with `Content-Type:
 * application/javascript` and no boundary; such a body is recognised by its first line (`--<boundary>`) and
 * read as the multipart body it is.
 */
export async function readUpload(c: Context<ApiEnv>, clock: Clock): Promise<ParsedUpload> {
  return parseUpload(await readForm(c), latestCompatibilityDate(clock.now()));
}

/** A multipart body (also one sent without a boundary in its content type, as the SDK's uploads are). */
async function readForm(c: Context<ApiEnv>): Promise<FormData> {
  const type = c.req.header('content-type') ?? '';
  try {
    if (/^multipart\/form-data/i.test(type)) return await c.req.formData();
    const body = new Uint8Array(await c.req.arrayBuffer());
    const boundary = /^--([!-~ ]{1,70}?)\r\n/.exec(new TextDecoder('latin1').decode(body.subarray(0, 80)))?.[1];
    if (boundary === undefined) throw invalidUpload('Send the Worker as multipart/form-data: a "metadata" part and one part per module');
    return await new Response(body, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }).formData();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalidUpload('The multipart/form-data body cannot be read');
  }
}

/** The script routes. */
export function workersScriptRoutes(clock: Clock): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const svc = (c: Context<ApiEnv>) => c.get('services').scripts;

  app.get('/accounts/:account_id/workers/scripts', async (c) => {
    const accountId = requireWorkersAccount(c);
    return ok(c, (await svc(c).list(accountId)).map(({ script, current }) => scriptView(script, current)));
  });

  app.put(SCRIPT, uploadLimit, async (c) => {
    const accountId = requireWorkersAccount(c);
    const upload = await readUpload(c, clock);
    const { script, version } = await svc(c).upload(actorOf(c), accountId, c.req.param('script_name'), upload);
    return ok(c, { ...scriptView(script, version), deployment_id: version.id, startup_time_ms: 0 });
  });

  // The script's content: the modules of the version traffic goes to, as multipart (production does the same
  // for module Workers), with the entry module's name in CF-Entrypoint.
  const content = async (c: Context<ApiEnv>, versionId: string | undefined): Promise<Response> => {
    const accountId = requireWorkersAccount(c);
    const script = await svc(c).require(accountId, c.req.param('script_name')!);
    const version = versionId ? await svc(c).version(script, versionId) : await svc(c).currentVersion(script);
    if (!version) throw new AppError(WORKERS_CODES.scriptNotFound, 'This Worker has no version.', 404);
    const form = new FormData();
    for (const m of await svc(c).modules(version.id)) form.append(m.name, new File([m.content as Uint8Array<ArrayBuffer>], m.name, { type: moduleMimeType(m.type) }));
    const res = new Response(form);
    return new Response(res.body, { status: 200, headers: { 'content-type': res.headers.get('content-type')!, 'cf-entrypoint': version.main_module } });
  };
  app.get(SCRIPT, (c) => content(c, undefined));
  app.get(`${SCRIPT}/content/v2`, (c) => content(c, c.req.query('version') || undefined));

  const remove = async (c: Context<ApiEnv>) => {
    const accountId = requireWorkersAccount(c);
    await svc(c).delete(accountId, c.req.param('script_name')!);
    return ok(c, null);
  };
  app.delete(SCRIPT, remove);
  app.delete('/accounts/:account_id/workers/services/:script_name', remove);

  app.get('/accounts/:account_id/workers/services/:script_name', async (c) => {
    const accountId = requireWorkersAccount(c);
    const script = await svc(c).require(accountId, c.req.param('script_name'));
    const current = await svc(c).currentVersion(script);
    // wrangler reads the served version's limits here (`default_environment.script.limits`).
    const view = { ...scriptView(script, current), limits: current ? JSON.parse(current.limits) as StoredLimits : {} };
    return ok(c, {
      id: script.name, created_on: script.created_on, modified_on: script.modified_on,
      default_environment: { environment: 'production', created_on: script.created_on, modified_on: script.modified_on, script: view },
    });
  });

  app.get(`${SCRIPT}/settings`, async (c) => {
    const script = await svc(c).require(requireWorkersAccount(c), c.req.param('script_name'));
    return ok(c, settingsView(script, await svc(c).currentVersion(script)));
  });
  // PATCH settings (multipart `settings`, JSON or the SDK's bracketed fields): bindings and compatibility make a
  // new version of the served one, deployed at once; logpush, tags, tail_consumers, observability are kept as is.
  app.patch(`${SCRIPT}/settings`, uploadLimit, async (c) => {
    const accountId = requireWorkersAccount(c);
    const form = await readForm(c);
    const settings = form.has('settings') ? await readMetadata(form.get('settings'), 'settings') : bracketed(form, 'settings');
    const script = await svc(c).editSettings(actorOf(c), accountId, c.req.param('script_name'), settings, latestCompatibilityDate(clock.now()));
    return ok(c, settingsView(script, await svc(c).currentVersion(script)));
  });
  app.get(`${SCRIPT}/script-settings`, async (c) => {
    const script = await svc(c).require(requireWorkersAccount(c), c.req.param('script_name'));
    return ok(c, settingsView(script, undefined));
  });
  app.patch(`${SCRIPT}/script-settings`, async (c) => {
    const accountId = requireWorkersAccount(c);
    return ok(c, await svc(c).patchSettings(accountId, c.req.param('script_name'), await readJsonObject(c)));
  });

  const subdomain = (s: { subdomain_enabled: number; previews_enabled: number }) => ({ enabled: s.subdomain_enabled === 1, previews_enabled: s.previews_enabled === 1 });
  app.get(`${SCRIPT}/subdomain`, async (c) => ok(c, subdomain(await svc(c).require(requireWorkersAccount(c), c.req.param('script_name')))));
  app.post(`${SCRIPT}/subdomain`, async (c) => {
    const accountId = requireWorkersAccount(c);
    const body = await readJsonObject(c);
    if (typeof body.enabled !== 'boolean') throw new AppError(WORKERS_CODES.validation, '"enabled" must be true or false', 400);
    if (body.previews_enabled !== undefined && body.previews_enabled !== null && typeof body.previews_enabled !== 'boolean') throw new AppError(WORKERS_CODES.validation, '"previews_enabled" must be true or false', 400);
    const previews = typeof body.previews_enabled === 'boolean' ? body.previews_enabled : body.enabled;
    return ok(c, subdomain(await svc(c).setSubdomain(accountId, c.req.param('script_name'), body.enabled, previews)));
  });
  app.delete(`${SCRIPT}/subdomain`, async (c) => ok(c, subdomain(await svc(c).setSubdomain(requireWorkersAccount(c), c.req.param('script_name'), false, false))));

  app.get(`${SCRIPT}/routes`, async (c) => {
    const accountId = requireWorkersAccount(c);
    await svc(c).require(accountId, c.req.param('script_name'));
    const rows = await c.get('services').workerRoutes.ofScript(accountId, c.req.param('script_name'));
    return ok(c, rows.map((r) => ({ ...routeView(r), zone_id: r.zone_id, zone_name: r.zone_name })));
  });
  // A token must hold Workers Routes Write on every zone of the account ("All zones"), as in production;
  // otherwise 10000, on which wrangler falls back to the zone routes API zone by zone.
  app.put(`${SCRIPT}/routes`, async (c) => {
    const accountId = requireWorkersAccount(c);
    const token = c.get('user').token;
    if (token) {
      for (const zone of await c.get('services').zones.list(c.get('user'), { accountId, page: 1, perPage: 1_000_000, order: 'name', direction: 'asc' }).then((r) => r.zones)) {
        if (!token.grants.allowsZone('workers_routes:edit', zone.id, accountId)) throw new AppError(10000, 'Authentication error', 403);
      }
    }
    const rows = await c.get('services').workerRoutes.replaceForScript(accountId, c.req.param('script_name'), await readJson(c));
    return ok(c, rows.map((r) => ({ ...routeView(r), zone_id: r.zone_id, zone_name: r.zone_name })));
  });

  // Cron triggers do not run on Stratus: an empty schedule list is accepted (and read back), any schedule refused.
  app.get(`${SCRIPT}/schedules`, async (c) => {
    await svc(c).require(requireWorkersAccount(c), c.req.param('script_name'));
    return ok(c, { schedules: [] });
  });
  app.put(`${SCRIPT}/schedules`, async (c) => {
    await svc(c).require(requireWorkersAccount(c), c.req.param('script_name'));
    const body = await readJson(c);
    if (!Array.isArray(body) || body.length > 0) throw new AppError(WORKERS_CODES.validation, 'Cron triggers are not supported by Stratus: send an empty list of schedules', 400);
    return ok(c, { schedules: [] });
  });

  // Nothing refers to a Stratus Worker (no service bindings, Durable Objects or dispatch namespaces exist).
  app.get(`${SCRIPT}/references`, async (c) => {
    await svc(c).require(requireWorkersAccount(c), c.req.param('script_name'));
    return ok(c, { services: { incoming: [], outgoing: [], pages_function: false }, durable_objects: [], dispatch_outbounds: [] });
  });
  return app;
}
