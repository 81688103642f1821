/**
 * Scripts of the edge and their immutable versions and deployments, per account: upload (a new version
 * deployed at once, as `PUT …/workers/scripts/:name`), versions (`POST …/versions`, deployed later by a
 * deployment), deployments (a percentage split over versions; the newest is active), listing and deletion.
 * Every write is one transaction that also bumps the edge serial; local listeners hear of it after commit.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { isoTimestamp } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { AppError } from '../shared/errors.js';
import type { ScriptModule } from '../edge/types.js';
import { WORKERS_CODES, scriptNotFound } from './errors.js';
import { validateBindings, type StoredBinding } from './bindings.js';
import { compatibilityDate, stringList, type ParsedUpload } from './upload.js';
import { parseLimits, type StoredLimits } from './limits.js';
import type { SecretBox } from '../shared/secret-box.js';
import { bumpEdgeSerial, type EdgeChanges } from '../db/edge-serial.js';
import {
  activeDeployment, deleteScriptRows, listScriptRows, findScript, findVersion, insertDeployment, insertVersion, latestVersion, traffic,
  versionModules, type DeploymentRow, type ScriptRow, type TrafficEntry, type VersionRow,
} from './script-rows.js';

/** Who makes a change (recorded on versions and deployments). */
export interface Actor {
  userId: string;
  email: string;
  /** `wrangler`, `api`, … (from the client's user agent). */
  source: string;
}

/** The account's buckets, as bindings see them. */
export interface BucketDirectory {
  /** True when the account may bind the bucket of this name. */
  exists(accountId: string, name: string): Promise<boolean>;
}

/** What the service is built from. */
export interface ScriptsDeps {
  db: Kysely<Database>;
  clock: Clock;
  changes: EdgeChanges;
  box: SecretBox;
  buckets: BucketDirectory;
}

/** A version with what its creation produced. */
export interface NewVersion { script: ScriptRow; version: VersionRow }

const NAME = /^[a-z0-9_][a-z0-9_-]{0,62}$/;
/** Shape of version and deployment ids. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Checks a Worker name (production: lowercase letters, digits, `-` and `_`, at most 63 characters). */
export function checkScriptName(name: string): void {
  if (!NAME.test(name)) throw new AppError(WORKERS_CODES.invalidName, `Invalid Worker name "${name}": use 1 to 63 lowercase letters, digits, "-" or "_", not starting with "-"`, 400);
}

/** The service. */
export class ScriptsService {
  constructor(private readonly deps: ScriptsDeps) {}

  /** The account's script, or 404 10007. */
  async require(accountId: string, name: string): Promise<ScriptRow> {
    const script = NAME.test(name) ? await findScript(this.deps.db, accountId, name) : undefined;
    if (!script) throw scriptNotFound();
    return script;
  }

  /** The account's scripts with the version traffic goes to, by name. */
  async list(accountId: string): Promise<{ script: ScriptRow; current: VersionRow | undefined }[]> {
    const out = [];
    for (const script of await listScriptRows(this.deps.db, accountId)) out.push({ script, current: await this.currentVersion(script) });
    return out;
  }

  /** `PUT …/scripts/:name`: creates the script if needed, adds a version and deploys it at 100%. */
  async upload(actor: Actor, accountId: string, name: string, upload: ParsedUpload): Promise<NewVersion & { deployment: DeploymentRow }> {
    checkScriptName(name);
    const now = isoTimestamp(this.deps.clock.now());
    const existing = await findScript(this.deps.db, accountId, name);
    // A new script's row is written with its first version, after its bindings passed: a refused upload leaves nothing.
    const planned: ScriptRow = existing ?? {
      id: newId(), account_id: accountId, name, subdomain_enabled: 0, previews_enabled: 0, settings: '{}', version_count: 0,
      last_deployed_from: actor.source, created_on: now, modified_on: now,
    };
    const bindings = await this.bindingsFor(planned, accountId, upload);
    const result = await this.commit(async (trx) => {
      if (!existing) {
        await trx.insertInto('workers_scripts').values(planned).onConflict((oc) => oc.columns(['account_id', 'name']).doNothing()).execute();
        const row = await findScript(trx, accountId, name);
        if (row?.id !== planned.id) throw new AppError(WORKERS_CODES.validation, `The Worker ${name} was created by another request at the same time; upload again.`, 400);
      }
      const version = await this.addVersion(trx, planned, actor, upload, bindings, {});
      const deployment = await insertDeployment(trx, this.deploymentRow(planned, actor, [{ version_id: version.id, percentage: 100 }], {}));
      return { version, deployment };
    });
    return { script: await this.require(accountId, name), ...result };
  }

  /** `POST …/scripts/:name/versions`: a new version of an existing script, not deployed. */
  async createVersion(actor: Actor, accountId: string, name: string, upload: ParsedUpload): Promise<NewVersion> {
    const script = await this.require(accountId, name);
    const bindings = await this.bindingsFor(script, accountId, upload);
    const version = await this.commit((trx) => this.addVersion(trx, script, actor, upload, bindings, {}));
    return { script, version };
  }

  /** `POST …/scripts/:name/deployments`: deploys versions of the script by percentage. */
  async deploy(actor: Actor, accountId: string, name: string, body: Record<string, unknown>): Promise<DeploymentRow> {
    const script = await this.require(accountId, name);
    const split = await this.checkSplit(script, body);
    const annotations: Record<string, string> = {};
    const message = (body.annotations as Record<string, unknown> | undefined)?.['workers/message'];
    if (typeof message === 'string') annotations['workers/message'] = message.slice(0, 100);
    return this.commit((trx) => insertDeployment(trx, this.deploymentRow(script, actor, split, annotations)));
  }

  /** The version of a script, or 404 10007. */
  async version(script: ScriptRow, versionId: string): Promise<VersionRow> {
    const v = UUID.test(versionId) ? await findVersion(this.deps.db, script.id, versionId) : undefined;
    if (!v) throw new AppError(WORKERS_CODES.scriptNotFound, `Version ${versionId} of this Worker does not exist.`, 404);
    return v;
  }

  /** The version traffic goes to (the largest share of the active deployment), else the newest version. */
  async currentVersion(script: ScriptRow): Promise<VersionRow | undefined> {
    const active = await activeDeployment(this.deps.db, script.id);
    const top = active ? [...traffic(active)].sort((a, b) => b.percentage - a.percentage)[0] : undefined;
    return (top && await findVersion(this.deps.db, script.id, top.version_id)) ?? latestVersion(this.deps.db, script.id);
  }

  /** The modules of a version. */
  modules(versionId: string): Promise<ScriptModule[]> {
    return versionModules(this.deps.db, versionId);
  }

  /** Deletes the script, its versions and deployments, and the routes of the account's zones that name it. */
  async delete(accountId: string, name: string): Promise<void> {
    const script = await this.require(accountId, name);
    await this.commit(async (trx) => {
      await deleteScriptRows(trx, script.id);
      const zones = trx.selectFrom('zones').select('id').where('account_id', '=', accountId);
      await trx.deleteFrom('workers_routes').where('script', '=', name).where('zone_id', 'in', zones).execute();
    });
  }

  /** Replaces (`set`) or removes (`null`) one secret: a copy of the deployed latest version, deployed at once. */
  async changeSecret(actor: Actor, accountId: string, name: string, secret: string, value: string | null): Promise<void> {
    const script = await this.require(accountId, name);
    const latest = await latestVersion(this.deps.db, script.id);
    if (!latest) throw scriptNotFound();
    const active = await activeDeployment(this.deps.db, script.id);
    const split = active ? traffic(active) : [];
    if (split.length !== 1 || split[0]!.version_id !== latest.id) {
      throw new AppError(WORKERS_CODES.versionNotDeployed, 'Secret edit failed: the latest version of this Worker is not the deployed one. Deploy it first.', 400);
    }
    const bindings = JSON.parse(latest.bindings) as StoredBinding[];
    if (value === null && !bindings.some((b) => b.name === secret && b.type === 'secret_text')) {
      throw new AppError(WORKERS_CODES.secretNotFound, `Secret ${secret} does not exist on this Worker.`, 404);
    }
    const next = bindings.filter((b) => b.name !== secret);
    if (value !== null) next.push({ type: 'secret_text', name: secret, sealed: this.deps.box.seal(value, script.id) });
    const modules = await versionModules(this.deps.db, latest.id);
    const upload: ParsedUpload = {
      mainModule: latest.main_module, modules, compatibilityDate: latest.compatibility_date,
      compatibilityFlags: JSON.parse(latest.compatibility_flags) as string[], bindings: [], keepBindings: [], annotations: {},
      limits: JSON.parse(latest.limits) as StoredLimits,
    };
    await this.commit(async (trx) => {
      const version = await this.addVersion(trx, script, actor, upload, next, { 'workers/triggered_by': 'secret' });
      await insertDeployment(trx, this.deploymentRow(script, actor, [{ version_id: version.id, percentage: 100 }], { 'workers/triggered_by': 'secret' }));
    });
  }

  /** Secret bindings of the version traffic goes to (names only). */
  async secrets(accountId: string, name: string): Promise<{ name: string; type: 'secret_text' }[]> {
    const version = await this.currentVersion(await this.require(accountId, name));
    const bindings = version ? JSON.parse(version.bindings) as StoredBinding[] : [];
    return bindings.filter((b) => b.type === 'secret_text').map((b) => ({ name: b.name, type: 'secret_text' as const }));
  }

  /** Updates non-versioned settings (logpush, observability, tags, tail_consumers); returns them. */
  async patchSettings(accountId: string, name: string, patch: Record<string, unknown>): Promise<Record<string, unknown>> {
    const script = await this.require(accountId, name);
    const settings = { ...scriptSettings(script) };
    for (const key of ['logpush', 'observability', 'tags', 'tail_consumers'] as const) if (key in patch) settings[key] = patch[key];
    await this.deps.db.updateTable('workers_scripts').set({ settings: JSON.stringify(settings), modified_on: isoTimestamp(this.deps.clock.now()) }).where('id', '=', script.id).execute();
    return settings;
  }

  /**
   * `PATCH …/settings`: `bindings` (validated as at upload, against the served version), `compatibility_date`,
   * `compatibility_flags` and `limits` make a copy of the served version, deployed at once; `logpush`, `tags`,
   * `tail_consumers` and `observability` update the script's own settings.
   */
  async editSettings(actor: Actor, accountId: string, name: string, settings: Record<string, unknown>, today: string): Promise<ScriptRow> {
    const script = await this.require(accountId, name);
    const served = await this.currentVersion(script);
    if (!served) throw scriptNotFound();
    const versioned = ['bindings', 'compatibility_date', 'compatibility_flags', 'limits'].some((k) => settings[k] !== undefined);
    if (versioned) {
      const previous = JSON.parse(served.bindings) as StoredBinding[];
      const bindings = settings.bindings === undefined ? previous : await validateBindings(settings.bindings, {
        previous, keepTypes: undefined,
        seal: (_n, text) => this.deps.box.seal(text, script.id),
        bucketExists: (bucket) => this.deps.buckets.exists(accountId, bucket),
      });
      const upload: ParsedUpload = {
        mainModule: served.main_module, modules: await versionModules(this.deps.db, served.id),
        compatibilityDate: settings.compatibility_date === undefined ? served.compatibility_date : compatibilityDate(settings.compatibility_date, today),
        compatibilityFlags: stringList(settings.compatibility_flags, 'compatibility_flags') ?? JSON.parse(served.compatibility_flags) as string[],
        bindings: [], keepBindings: [], annotations: {},
        limits: settings.limits === undefined ? JSON.parse(served.limits) as StoredLimits : parseLimits(settings.limits, 'settings.limits'),
      };
      await this.commit(async (trx) => {
        const version = await this.addVersion(trx, script, actor, upload, bindings, { 'workers/triggered_by': 'version_settings' });
        await insertDeployment(trx, this.deploymentRow(script, actor, [{ version_id: version.id, percentage: 100 }], { 'workers/triggered_by': 'version_settings' }));
      });
    }
    const plain: Record<string, unknown> = {};
    for (const key of ['logpush', 'tags', 'tail_consumers', 'observability'] as const) {
      if (settings[key] !== undefined) plain[key] = key === 'logpush' ? settings[key] === true || settings[key] === 'true' : settings[key];
    }
    if (Object.keys(plain).length > 0) await this.patchSettings(accountId, name, plain);
    return this.require(accountId, name);
  }

  /** Turns the script's `<name>.<subdomain>` hostname on or off. */
  async setSubdomain(accountId: string, name: string, enabled: boolean, previews: boolean): Promise<ScriptRow> {
    const script = await this.require(accountId, name);
    await this.commit((trx) => trx.updateTable('workers_scripts').set({ subdomain_enabled: enabled ? 1 : 0, previews_enabled: previews ? 1 : 0 }).where('id', '=', script.id).execute());
    return this.require(accountId, name);
  }

  /** Runs `fn` in a transaction that bumps the edge serial; announces the change after commit. */
  async commit<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const result = await this.deps.db.transaction().execute(async (trx) => {
      const value = await fn(trx);
      await bumpEdgeSerial(trx);
      return value;
    });
    this.deps.changes.publish();
    return result;
  }

  private async bindingsFor(script: ScriptRow, accountId: string, upload: ParsedUpload): Promise<StoredBinding[]> {
    const latest = await latestVersion(this.deps.db, script.id);
    return validateBindings(upload.bindings, {
      previous: latest ? JSON.parse(latest.bindings) as StoredBinding[] : null,
      keepTypes: upload.keepBindings,
      seal: (_name, text) => this.deps.box.seal(text, script.id),
      bucketExists: (bucket) => this.deps.buckets.exists(accountId, bucket),
    });
  }

  private async addVersion(trx: Transaction<Database>, script: ScriptRow, actor: Actor, upload: ParsedUpload, bindings: StoredBinding[], extra: Record<string, string>): Promise<VersionRow> {
    const now = isoTimestamp(this.deps.clock.now());
    const bumped = await trx.updateTable('workers_scripts')
      .set((eb) => ({ version_count: eb('version_count', '+', 1), modified_on: now, last_deployed_from: actor.source }))
      .where('id', '=', script.id).returning('version_count').executeTakeFirstOrThrow();
    const row: VersionRow = {
      id: randomUUID(), script_id: script.id, number: Number(bumped.version_count), main_module: upload.mainModule,
      compatibility_date: upload.compatibilityDate, compatibility_flags: JSON.stringify(upload.compatibilityFlags),
      bindings: JSON.stringify(bindings), annotations: JSON.stringify({ ...upload.annotations, 'workers/triggered_by': 'upload', ...extra }),
      limits: JSON.stringify(upload.limits),
      etag: etagOf(upload.modules), source: actor.source, author_id: actor.userId, author_email: actor.email, created_on: now,
    };
    await insertVersion(trx, row, upload.modules);
    return row;
  }

  private deploymentRow(script: ScriptRow, actor: Actor, split: TrafficEntry[], annotations: Record<string, string>): Omit<DeploymentRow, 'seq'> {
    return {
      id: randomUUID(), script_id: script.id, versions: JSON.stringify(split), annotations: JSON.stringify(annotations),
      source: actor.source, author_email: actor.email, created_on: isoTimestamp(this.deps.clock.now()),
    };
  }

  private async checkSplit(script: ScriptRow, body: Record<string, unknown>): Promise<TrafficEntry[]> {
    const bad = (message: string) => new AppError(WORKERS_CODES.invalidDeployment, message, 400);
    if (body.strategy !== undefined && body.strategy !== 'percentage') throw bad('strategy must be "percentage"');
    const list = body.versions;
    if (!Array.isArray(list) || list.length === 0 || list.length > 2) throw bad('versions must list one or two {version_id, percentage}');
    const split: TrafficEntry[] = [];
    for (const v of list as Record<string, unknown>[]) {
      if (typeof v?.version_id !== 'string' || typeof v.percentage !== 'number' || v.percentage < 0 || v.percentage > 100) throw bad('each version needs a version_id and a percentage from 0 to 100');
      if (split.some((s) => s.version_id === v.version_id)) throw bad(`version ${v.version_id} is listed twice`);
      await this.version(script, v.version_id);
      split.push({ version_id: v.version_id, percentage: v.percentage });
    }
    if (Math.abs(split.reduce((n, s) => n + s.percentage, 0) - 100) > 1e-9) throw bad('the percentages must add up to 100');
    return split;
  }
}

/** The script's non-versioned settings. */
export function scriptSettings(script: ScriptRow): Record<string, unknown> {
  return { logpush: false, observability: null, tags: [], tail_consumers: null, ...(JSON.parse(script.settings) as Record<string, unknown>) };
}

/** A content hash of a version's modules (names, types and bytes). */
function etagOf(modules: ScriptModule[]): string {
  const hash = createHash('sha256');
  for (const m of modules) hash.update(`${m.name}\0${m.type}\0${m.content.byteLength}\0`).update(m.content);
  return hash.digest('hex');
}
