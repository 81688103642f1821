/**
 * Reads and writes of script rows (scripts, versions with their modules, deployments) through Kysely, the
 * same on SQLite and PostgreSQL. Writes take a transaction; callers bump the edge serial in it.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, WorkersDeploymentsTable, WorkersScriptsTable, WorkersVersionsTable } from '../db/schema.js';
import type { ScriptModule } from '../edge/types.js';

/** A script row. */
export type ScriptRow = Selectable<WorkersScriptsTable>;
/** A version row (without modules). */
export type VersionRow = Selectable<WorkersVersionsTable>;
/** A deployment row. */
export type DeploymentRow = Selectable<WorkersDeploymentsTable>;
/** A deployment's traffic split. */
export interface TrafficEntry { version_id: string; percentage: number }

type Db = Kysely<Database> | Transaction<Database>;

/** The account's script of this name, or undefined. */
export function findScript(db: Db, accountId: string, name: string): Promise<ScriptRow | undefined> {
  return db.selectFrom('workers_scripts').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
}

/** Every script of the account, by name. */
export function listScriptRows(db: Db, accountId: string): Promise<ScriptRow[]> {
  return db.selectFrom('workers_scripts').selectAll().where('account_id', '=', accountId).orderBy('name').execute();
}

/** A version of the script, or undefined. */
export function findVersion(db: Db, scriptId: string, versionId: string): Promise<VersionRow | undefined> {
  return db.selectFrom('workers_versions').selectAll().where('script_id', '=', scriptId).where('id', '=', versionId).executeTakeFirst();
}

/** The newest version of the script. */
export function latestVersion(db: Db, scriptId: string): Promise<VersionRow | undefined> {
  return db.selectFrom('workers_versions').selectAll().where('script_id', '=', scriptId).orderBy('number', 'desc').limit(1).executeTakeFirst();
}

/** Versions of the script, newest first. */
export function listVersionRows(db: Db, scriptId: string, offset: number, limit: number): Promise<VersionRow[]> {
  return db.selectFrom('workers_versions').selectAll().where('script_id', '=', scriptId).orderBy('number', 'desc').offset(offset).limit(limit).execute();
}

/** Number of versions of the script. */
export async function countVersions(db: Db, scriptId: string): Promise<number> {
  const row = await db.selectFrom('workers_versions').select((eb) => eb.fn.countAll<number>().as('n')).where('script_id', '=', scriptId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The modules of a version, in upload order. */
export async function versionModules(db: Db, versionId: string): Promise<ScriptModule[]> {
  const rows = await db.selectFrom('workers_modules').select(['name', 'type', 'content']).where('version_id', '=', versionId).orderBy('position').execute();
  return rows.map((r) => ({ name: r.name, type: r.type as ScriptModule['type'], content: new Uint8Array(r.content.buffer, r.content.byteOffset, r.content.byteLength) }));
}

/** Inserts a version and its modules. */
export async function insertVersion(trx: Transaction<Database>, row: VersionRow, modules: ScriptModule[]): Promise<void> {
  await trx.insertInto('workers_versions').values(row).execute();
  for (const [position, m] of modules.entries()) {
    await trx.insertInto('workers_modules').values({ version_id: row.id, position, name: m.name, type: m.type, content: Buffer.from(m.content.buffer, m.content.byteOffset, m.content.byteLength) }).execute();
  }
}

/** The script's deployments, newest first. */
export function listDeploymentRows(db: Db, scriptId: string, limit = 10): Promise<DeploymentRow[]> {
  return db.selectFrom('workers_deployments').selectAll().where('script_id', '=', scriptId).orderBy('seq', 'desc').limit(limit).execute();
}

/** One deployment of the script, or undefined. */
export function findDeployment(db: Db, scriptId: string, deploymentId: string): Promise<DeploymentRow | undefined> {
  return db.selectFrom('workers_deployments').selectAll().where('script_id', '=', scriptId).where('id', '=', deploymentId).executeTakeFirst();
}

/** The active (newest) deployment of the script. */
export async function activeDeployment(db: Db, scriptId: string): Promise<DeploymentRow | undefined> {
  return (await listDeploymentRows(db, scriptId, 1))[0];
}

/** Inserts a deployment after the script's newest one. */
export async function insertDeployment(trx: Transaction<Database>, row: Omit<DeploymentRow, 'seq'>): Promise<DeploymentRow> {
  const last = await activeDeployment(trx, row.script_id);
  const full = { ...row, seq: (last?.seq ?? 0) + 1 };
  await trx.insertInto('workers_deployments').values(full).execute();
  return full;
}

/** The traffic split of a deployment row. */
export function traffic(d: DeploymentRow): TrafficEntry[] {
  return JSON.parse(d.versions) as TrafficEntry[];
}

/** Removes a script with its versions, modules and deployments. */
export async function deleteScriptRows(trx: Transaction<Database>, scriptId: string): Promise<void> {
  const versions = trx.selectFrom('workers_versions').select('id').where('script_id', '=', scriptId);
  await trx.deleteFrom('workers_modules').where('version_id', 'in', versions).execute();
  await trx.deleteFrom('workers_versions').where('script_id', '=', scriptId).execute();
  await trx.deleteFrom('workers_deployments').where('script_id', '=', scriptId).execute();
  await trx.deleteFrom('workers_scripts').where('id', '=', scriptId).execute();
}
