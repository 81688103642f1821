/**
 * `stratus dev`: serves one edge script over HTTP. Each request goes to the script's worker thread
 * (script-host.ts); its `env` holds the configured buckets, stored in the data folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
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

  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: (req: Request) => host.fetch(req), hostname: opts.http.host, port: opts.http.port }, () => resolve(s));
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostPart}:${address.port}`,
    port: address.port,
    host,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await host.close();
    },
  };
}
