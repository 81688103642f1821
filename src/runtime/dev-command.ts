/**
 * `stratus dev [SCRIPT] [--config FILE] [--http HOST:PORT] [--data-dir DIR] [--timeout-ms N] [--memory-mb N]`:
 * serves one edge script until SIGINT/SIGTERM. Without --config, the first of stratus.toml, wrangler.toml,
 * wrangler.json in the current folder is used when present.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, parseCidr, parseListen } from '../config/config.js';
import { createLogger } from '../shared/logger.js';
import { startDevServer, ScriptLoadError } from './dev-server.js';
import { ScriptConfigError } from './script-config.js';

/** Usage text of `stratus dev`, for the CLI's help. */
export const DEV_USAGE = `  dev [SCRIPT] [--config FILE] [--http HOST:PORT] [--data-dir DIR] [--timeout-ms N] [--memory-mb N]
            run an edge script (export default { fetch(request, env, ctx) }) in workerd with the
            bindings of its config (wrangler.toml/.json/.jsonc: name, main, compatibility_date,
            compatibility_flags, vars, r2_buckets or store_buckets; other keys accepted or warned about);
            defaults: config ./stratus.toml, ./wrangler.toml, ./wrangler.json or ./wrangler.jsonc if
            present, --http 127.0.0.1:8787, --data-dir ./.stratus, --timeout-ms 30000 (CPU limit),
            --memory-mb 1024 (runtime process); --script-outbound CIDRS lets the script fetch
            those ranges (local services) besides public addresses
`;

const DEFAULT_CONFIGS = ['stratus.toml', 'wrangler.toml', 'wrangler.json', 'wrangler.jsonc'];

/** Runs `stratus dev`; resolves -1 while serving (the process stays up), or an exit code on failure. */
export async function devCommand(args: string[], flags: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const fail = (message: string, code = 2) => { process.stderr.write(`stratus dev: ${message}\n`); return code; };
  if (args.length > 1) return fail(`expected at most one SCRIPT, got ${args.length}: ${args.join(' ')}`);
  const int = (name: string, fallback: number): number => {
    const raw = flags[name];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new ConfigError(`--${name} must be a positive whole number, got "${raw}"`);
    return n;
  };
  try {
    const configFile = flags.config ?? DEFAULT_CONFIGS.map((f) => path.resolve(f)).find((f) => fs.existsSync(f));
    const logger = createLogger(flags['log-level'] ?? env.STRATUS_LOG_LEVEL ?? 'info');
    const running = await startDevServer({
      script: args[0],
      configFile,
      http: parseListen(flags.http ?? env.STRATUS_HTTP ?? '127.0.0.1:8787', 'http'),
      dataDir: path.resolve(flags['data-dir'] ?? env.STRATUS_DATA_DIR ?? './.stratus'),
      logger,
      timeoutMs: int('timeout-ms', 30_000),
      memoryLimitMb: int('memory-mb', 1024),
      scriptOutbound: (flags['script-outbound'] ?? '').split(',').map((c) => c.trim()).filter(Boolean).map((c) => parseCidr(c, 'script-outbound')),
    });
    for (const w of running.warnings) process.stderr.write(`stratus dev: warning: ${w}\n`);
    process.stdout.write(`stratus dev: listening on ${running.url}\n`);
    const stop = (signal: string) => {
      process.stdout.write(`stratus dev: ${signal}, stopping\n`);
      running.close().then(() => process.exit(0), (err) => { logger.error({ err }, 'error while stopping'); process.exit(1); });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    return -1;
  } catch (err) {
    if (err instanceof ScriptConfigError || err instanceof ConfigError) return fail(err.message);
    if (err instanceof ScriptLoadError) return fail(`the script failed to load: ${err.message}`, 1);
    throw err;
  }
}
