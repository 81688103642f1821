/**
 * `stratus dev`: serves one edge script over HTTP. Each request goes to the script's worker thread
 * (script-host.ts); its `env` holds the configured buckets, stored in the data folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { listenHttp } from '../shared/http-listener.js';
import type { ListenAddress } from '../config/config.js';
import type { Logger } from '../shared/logger.js';
import { ScriptHost } from './script-host.js';
import { loadScriptConfig, ScriptConfigError, type ScriptConfig } from './script-config.js';

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** The module script; may be omitted when the config file has `main`. */
  script?: string | undefined;
  /** Path of the TOML or JSON config file. */
  configFile?: string | undefined;
  /** An already validated config (instead of, or overriding, the file). */
  config?: ScriptConfig;
  http: ListenAddress;
  dataDir: string;
  logger: Logger;
  timeoutMs?: number;
  memoryLimitMb?: number;
  /** Plain-text variables on env. */
  vars?: Record<string, string>;
  /** The worker entry module (tests pass a bundled build); default the compiled worker-main.js. */
  workerUrl?: URL;
}

/** A running dev server. */
export interface RunningDevServer {
  /** `http://host:port` */
  url: string;
  port: number;
  host: ScriptHost;
  close(): Promise<void>;
}

/** Resolves the script and config, starts the script's worker, then listens. */
export async function startDevServer(opts: DevServerOptions): Promise<RunningDevServer> {
  const config: ScriptConfig = opts.config ?? (opts.configFile
    ? loadScriptConfig(opts.configFile)
    : { main: undefined, compatibilityDate: undefined, compatibilityFlags: [], buckets: [] });
  const script = opts.script !== undefined ? path.resolve(opts.script) : config.main;
  if (script === undefined) throw new ScriptConfigError('no script given: pass SCRIPT or set `main` in the config file');
  if (!fs.existsSync(script)) throw new ScriptConfigError(`script not found: ${script}`);
  fs.mkdirSync(opts.dataDir, { recursive: true });

  const host = new ScriptHost({
    setup: {
      scriptUrl: pathToFileURL(script).href,
      dataDir: opts.dataDir,
      buckets: config.buckets,
      compatibilityDate: config.compatibilityDate,
      compatibilityFlags: config.compatibilityFlags,
      vars: opts.vars ?? {},
    },
    logger: opts.logger.child({ component: 'runtime' }),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.memoryLimitMb !== undefined ? { memoryLimitMb: opts.memoryLimitMb } : {}),
    ...(opts.workerUrl ? { workerUrl: opts.workerUrl } : {}),
  });
  await host.start();

  const http = await listenHttp((req: Request) => host.fetch(req), opts.http);
  return {
    url: http.url,
    port: http.port,
    host,
    async close() {
      await http.close();
      await host.close();
    },
  };
}
