/**
 * `stratus dev`: serves one edge script on the same runtime as `stratus serve --edge` (workerd, its own bucket
 * binding backed by the data folder's store). Every request, whatever its Host, runs the script. Its bindings
 * name buckets of one account (dev-account.ts: the admin's unless `--account` or the config's `account_id`
 * says otherwise), the very buckets `stratus serve`'s S3 API and v4 routes show for that account; a bound bucket
 * the account does not have yet is created in it, so S3 clients see it too.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ListenAddress } from '../config/config.js';
import type { ScriptBinding } from '../edge/types.js';
import type { Logger } from '../shared/logger.js';
import { openBucketStore, withBucketDefaults } from '../store/index.js';
import type { BucketNamespace, BucketOptions, StoreBucket } from '../store/types.js';
import { resolveDevAccount, type DevAccount } from './dev-account.js';
import { DevCatalog, type DevScript } from './dev-catalog.js';
import { watchDevScript, type ReloadEvents } from './dev-reload.js';
import type { EdgeAccessRecord } from './control-service.js';
import { EdgeRuntime } from './edge-runtime.js';
import { loadScriptConfig, ScriptConfigError, type ScriptConfig } from './script-config.js';

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** The module script; may be omitted when the config file has `main`. */
  script?: string | undefined;
  /** Path of the TOML, JSON or JSONC config file. */
  configFile?: string | undefined;
  /** An already validated config (instead of, or overriding, the file). */
  config?: ScriptConfig;
  http: ListenAddress;
  dataDir: string;
  /** The account whose buckets the bindings name (wins over the config's `account_id`); default: the admin's. */
  account?: string | undefined;
  logger: Logger;
  /** CPU limit: longest the script may keep the runtime from answering, ms. Default 30000. */
  timeoutMs?: number;
  /** Wall-time limit of a script's answer, ms (1102 page). Default none, as production. */
  wallTimeoutMs?: number;
  /** Memory limit of the runtime process, MiB. Default 1024. */
  memoryLimitMb?: number;
  /** `fetch()` calls per request (0: none); the config's `[limits]` may lower it. Default 50, as `serve`. */
  subrequests?: number;
  /** Bucket binding operations per request (0: none); the config's `[limits]` may lower it. Default 1000, as `serve`. */
  bucketSubrequests?: number;
  /** Plain-text variables on env (besides the config's `vars`). */
  vars?: Record<string, string>;
  /** CIDRs the script may fetch besides public addresses. */
  scriptOutbound?: string[];
  /** Reload the script and config when their files change (dev-reload.ts), telling these. Default: no watching. */
  watch?: ReloadEvents;
  /** Each finished request (instead of the access log): `stratus dev` prints a line for each. */
  onRequest?: (record: EdgeAccessRecord) => void;
}

/** A running dev server. */
export interface RunningDevServer {
  /** `http://host:port` */
  url: string;
  port: number;
  runtime: EdgeRuntime;
  /** The account whose buckets the bindings name, and where it came from. */
  account: DevAccount;
  /** Config warnings (unknown keys). */
  warnings: string[];
  /** Reads the files again and serves them if they load (what a change on disk does when watching). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** The script could not be loaded (syntax error, missing module). */
export class ScriptLoadError extends Error {
  override name = 'ScriptLoadError';
}

function bindings(config: ScriptConfig, vars: Record<string, string>): ScriptBinding[] {
  const out: ScriptBinding[] = [];
  for (const [name, value] of Object.entries({ ...config.vars, ...vars })) {
    out.push(typeof value === 'string' ? { type: 'plain_text', name, text: value } : { type: 'json', name, json: value });
  }
  for (const b of config.buckets) out.push({ type: 'r2_bucket', name: b.binding, bucketName: b.bucketName });
  return out;
}

const NO_CONFIG: ScriptConfig = { main: undefined, compatibilityDate: undefined, compatibilityFlags: [], buckets: [] };

/** The script definition of `config` (SCRIPT given on the command line wins over its `main`). */
function definition(opts: DevServerOptions, config: ScriptConfig): DevScript {
  const script = opts.script !== undefined ? path.resolve(opts.script) : config.main;
  if (script === undefined) throw new ScriptConfigError('no script given: pass SCRIPT or set `main` in the config file');
  if (!fs.existsSync(script)) throw new ScriptConfigError(`script not found: ${script}`);
  return {
    name: config.name ?? path.basename(script).replace(/\.[^.]+$/, ''), main: script,
    compatibilityDate: config.compatibilityDate, compatibilityFlags: config.compatibilityFlags, bindings: bindings(config, opts.vars ?? {}),
    limits: config.limits,
  };
}

/**
 * The bucket `name` of `buckets` as the binding sees it (with its default storage class), created first when the
 * account does not have it: as wrangler dev's local storage makes a bucket on use, but in the shared data
 * folder, where S3 and the v4 API list it.
 */
async function devBucket(buckets: BucketNamespace, name: string, options: BucketOptions, logger: Logger): Promise<StoreBucket> {
  let info = await buckets.bucketInfo(name);
  if (!info) {
    if ((await buckets.createBucket(name)) === 'created') logger.info({ bucket: name }, 'created the bound bucket in the account');
    info = await buckets.bucketInfo(name);
  }
  return buckets.bucket(name, withBucketDefaults(info, options));
}

/** The account of `opts` and `config`: `--account`, else the config's `account_id`, else the admin's. */
function requestedAccount(opts: DevServerOptions, config: ScriptConfig): { id: string; source: string } | undefined {
  if (opts.account !== undefined) return { id: opts.account, source: '--account' };
  if (config.accountId === undefined) return undefined;
  return { id: config.accountId, source: `${opts.configFile && !opts.config ? path.basename(opts.configFile) : 'the config'}'s account_id` };
}

/** Resolves the script, config and account, starts the runtime on the listener and loads the script. */
export async function startDevServer(opts: DevServerOptions): Promise<RunningDevServer> {
  const config: ScriptConfig = opts.config ?? (opts.configFile ? loadScriptConfig(opts.configFile) : NO_CONFIG);
  const catalog = new DevCatalog(definition(opts, config));
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const account = await resolveDevAccount(opts.dataDir, requestedAccount(opts, config));
  const store = await openBucketStore({ dataDir: opts.dataDir });
  const buckets = store.forAccount(account.id);
  const log = opts.logger.child({ component: 'dev', account: account.id });
  try {
    // Buckets written before buckets belonged to accounts become the admin's, as at `stratus serve`'s start.
    await store.adoptBuckets(account.adminId);
    // The bound buckets exist from the start, so S3 clients can fill them before the script runs.
    for (const b of config.buckets) await devBucket(buckets, b.bucketName, {}, log);
  } catch (err) {
    await store.close();
    throw err;
  }
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const onRequest = opts.onRequest;
  const runtime = new EdgeRuntime({
    listen: opts.http, catalog, logger: opts.logger, exposeErrors: true,
    // The catalog's own account is a placeholder: every binding names a bucket of the resolved account.
    bucketFor: (_account, name, options) => devBucket(buckets, name, options, log),
    cpuMs: timeoutMs, wallMs: opts.wallTimeoutMs ?? 0, memoryMb: opts.memoryLimitMb ?? 1024,
    ...(opts.subrequests !== undefined ? { subrequests: opts.subrequests } : {}),
    ...(opts.bucketSubrequests !== undefined ? { bucketSubrequests: opts.bucketSubrequests } : {}),
    // The served version and one being loaded beside it, in one runtime (one account: nothing to keep apart).
    maxVersions: 2, runtimes: 0,
    // The workerd front: it reports each request as it is answered, which `stratus dev` prints at once.
    front: 'workerd',
    ...(onRequest ? { access: (records: EdgeAccessRecord[]) => records.forEach(onRequest) } : {}),
    ...(opts.scriptOutbound ? { scriptOutbound: opts.scriptOutbound } : {}),
  });
  try {
    await runtime.start();
    await runtime.ensure(catalog.versionId).catch((err: Error) => { throw new ScriptLoadError(err.message); });
  } catch (err) {
    await runtime.close().catch(() => undefined);
    await store.close();
    throw err;
  }
  const reloader = watchDevScript({
    catalog, runtime, configFile: opts.config ? undefined : opts.configFile,
    definition: (c) => definition(opts, opts.config ?? c ?? NO_CONFIG),
    events: opts.watch ?? { reloaded: () => undefined, failed: () => undefined },
  });
  if (!opts.watch) reloader.close();
  return {
    url: runtime.url,
    port: runtime.port,
    runtime,
    account,
    warnings: config.warnings ?? [],
    reload: () => reloader.reload(),
    async close() {
      reloader.close();
      await runtime.close();
      await store.close();
    },
  };
}
