/**
 * `stratus dev [SCRIPT] [--config FILE] [--http HOST:PORT] [--data-dir DIR] [--account ID] [--script-cpu-ms N] [--script-memory-mb N]
 * [--script-subrequests N] [--script-bucket-subrequests N]` (the runtime flags of `serve`, read by the same code;
 * `--timeout-ms` and `--memory-mb` are their older names): serves one edge script until SIGINT/SIGTERM/SIGHUP. Without
 * --config, the first of stratus.toml, wrangler.toml, wrangler.json, wrangler.jsonc in the current folder is used
 * when present. The script and the config are
 * reloaded when they change on disk (a version that fails to load leaves the previous one serving and prints
 * why), and each request is one line on stdout as wrangler dev prints it (`GET /path 200 OK (3ms)`); with
 * `--log-format json` requests are JSON access lines of the log instead.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, parseCidr, parseListen, scriptLimitsConfig } from '../config/config.js';
import { envName } from '../config/flags.js';
import { createLogger } from '../shared/logger.js';
import { defaultLogFormat } from '../shared/log-format.js';
import { startDevServer, ScriptLoadError } from './dev-server.js';
import { ScriptConfigError } from './script-config.js';
import { DevAccountError } from './dev-account.js';
import type { EdgeAccessRecord } from './control-service.js';

/** workerd's load failure without the runtime's framing: `Uncaught SyntaxError: … at worker.js:1:33`. */
function loadError(message: string): string {
  return message.replace(/^workerd exited \([^)]*\) before serving:\n/, '').replace(/^service s:[0-9a-f]+: /m, '');
}

/** A request as wrangler dev prints it: `GET /path?q 200 OK (3ms)`. */
export function requestLine(r: EdgeAccessRecord): string {
  const text = http.STATUS_CODES[r.status];
  return `${r.method} ${r.path ?? '/'} ${r.status}${text ? ` ${text}` : ''} (${Math.round(r.ms)}ms)`;
}

const DEFAULT_CONFIGS = ['stratus.toml', 'wrangler.toml', 'wrangler.json', 'wrangler.jsonc'];

/** Runs `stratus dev`; resolves -1 while serving (the process stays up), or an exit code on failure. */
export async function devCommand(args: string[], flags: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const fail = (message: string, code = 2) => { process.stderr.write(`stratus dev: ${message}\n`); return code; };
  if (args.length > 1) return fail(`expected at most one SCRIPT, got ${args.length}: ${args.join(' ')}`);
  try {
    // The runtime's limit flags and their variables, as `serve` reads them; the older dev names still count.
    const older: Record<string, string> = { 'script-cpu-ms': 'timeout-ms', 'script-memory-mb': 'memory-mb' };
    const get = (name: string): string | undefined => flags[name] ?? (older[name] ? flags[older[name]] : undefined) ?? env[envName(name)];
    const limits = scriptLimitsConfig(get);
    const configFile = flags.config ?? DEFAULT_CONFIGS.map((f) => path.resolve(f)).find((f) => fs.existsSync(f));
    const format = flags['log-format'] ?? env.STRATUS_LOG_FORMAT ?? defaultLogFormat(process.stdout.isTTY);
    if (format !== 'json' && format !== 'pretty') throw new ConfigError(`--log-format must be json or pretty, got "${format}"`);
    const logger = createLogger(flags['log-level'] ?? env.STRATUS_LOG_LEVEL ?? 'info', format);
    const running = await startDevServer({
      script: args[0],
      configFile,
      http: parseListen(flags.http ?? env.STRATUS_HTTP ?? '127.0.0.1:8787', 'http'),
      dataDir: path.resolve(flags['data-dir'] ?? env.STRATUS_DATA_DIR ?? './.stratus'),
      account: get('account'),
      logger,
      timeoutMs: limits.scriptCpuMs,
      memoryLimitMb: limits.scriptMemoryMb,
      subrequests: limits.scriptSubrequests,
      bucketSubrequests: limits.scriptBucketSubrequests,
      scriptOutbound: (flags['script-outbound'] ?? '').split(',').map((c) => c.trim()).filter(Boolean).map((c) => parseCidr(c, 'script-outbound')),
      watch: {
        reloaded: (warnings) => {
          for (const w of warnings) process.stderr.write(`stratus dev: warning: ${w}\n`);
          process.stdout.write('stratus dev: reloaded\n');
        },
        failed: (message) => process.stderr.write(`stratus dev: reload failed, still serving the previous version: ${loadError(message)}\n`),
      },
      ...(format === 'pretty' ? { onRequest: (r: EdgeAccessRecord) => process.stdout.write(`${requestLine(r)}\n`) } : {}),
    });
    for (const w of running.warnings) process.stderr.write(`stratus dev: warning: ${w}\n`);
    const { account } = running;
    if (account.generatedCredentialsFile) {
      process.stdout.write(`stratus dev: made this data folder's admin, as a first \`stratus serve\` does (credentials in ${account.generatedCredentialsFile}; \`stratus credentials\` prints them)\n`);
    }
    process.stdout.write(`stratus dev: bindings name the buckets of account ${account.id} (${account.source})\n`);
    const stop = (signal: string) => {
      process.stdout.write(`stratus dev: ${signal}, stopping\n`);
      running.close().then(() => process.exit(0), (err) => { logger.error({ err }, 'error while stopping'); process.exit(1); });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGHUP', () => stop('SIGHUP'));
    // Announced once the signals are handled: whoever reads the address may signal at once.
    process.stdout.write(`stratus dev: listening on ${running.url}\n`);
    return -1;
  } catch (err) {
    if (err instanceof ScriptConfigError || err instanceof ConfigError || err instanceof DevAccountError) return fail(err.message);
    if (err instanceof ScriptLoadError) return fail(`the script failed to load: ${err.message}`, 1);
    throw err;
  }
}
