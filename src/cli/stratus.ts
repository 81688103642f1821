/**
 * The `stratus` command (loaded by src/cli.ts once the Node.js version is known to be supported): `stratus <command> [flags]`. Flags are `--name value` or `--name=value`, checked
 * against the flag table (config/flags.ts: an unknown flag stops the command); each also reads
 * `STRATUS_<NAME>` from the environment (the `zone` client commands read wrangler's `CLOUDFLARE_*` variables).
 * `--help` on any command lists its flags; `--version`.
 */
import { ConfigError, loadConfig } from '../config/config.js';
import { parseArgs, closest, unknownVariables } from '../config/args.js';
import { COMMANDS, commandHelp, mainHelp } from '../config/help.js';
import type { FlagCommand } from '../config/flags.js';
import { AppError } from '../shared/errors.js';
import { formatCredentials, readSavedCredentials } from './credentials-command.js';
import { formatEnv } from './credentials-env.js';
import { packageVersion } from './version.js';

// Each command's code is loaded only when it runs: `stratus --help` or `stratus zone` need not load the server,
// the database drivers and the AWS SDK (a second of CPU per start).

async function main(argv: string[]): Promise<number> {
  const first = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  const names = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))];
  if (first !== undefined && first !== 'help' && !names.includes(first)) {
    const near = closest(first, names);
    throw new ConfigError(`unknown command "${first}"${near ? ` (did you mean ${near}?)` : ''}; see stratus --help`);
  }
  if (first === 'zone') return (await import('./zone-command.js')).zoneCommand(argv.slice(1));
  const command = first === undefined || first === 'help' ? undefined : first as FlagCommand;
  const args = parseArgs(argv.slice(first === undefined ? 0 : 1), command);
  if (args.version) { process.stdout.write(`${packageVersion()}\n`); return 0; }
  if (command === undefined) {
    const topic = first === 'help' ? args.positional[0] : undefined;
    if (topic === 'zone') { process.stdout.write((await import('./zone-command.js')).zoneHelp()); return 0; }
    if (topic !== undefined && names.includes(topic)) { process.stdout.write(commandHelp(topic as FlagCommand)); return 0; }
    const help = mainHelp(packageVersion());
    if (args.help || first === 'help') { process.stdout.write(help); return 0; }
    process.stderr.write(help);
    return 2;
  }
  if (args.help) { process.stdout.write(commandHelp(command)); return 0; }
  for (const warning of unknownVariables(process.env)) process.stderr.write(`stratus: warning: ${warning}\n`);
  const { positional, flags } = args;
  if (command === 'user') return (await import('./user-command.js')).userCommand(positional, flags);
  if (command === 'dev') return (await import('../runtime/dev-command.js')).devCommand(positional, flags);
  if (command === 'credentials') return credentialsCommand(positional, flags);
  if (command === 'backup') return (await import('./backup-command.js')).backupCommand(positional, flags);
  if (command === 'restore') return (await import('./backup-command.js')).restoreCommand(positional, flags);
  if (command === 'ca') return (await import('./ca-command.js')).caCommand(positional, flags);
  if (positional.length > 0) throw new ConfigError(`stratus serve takes no arguments, got "${positional.join(' ')}"; see stratus serve --help`);
  return (await import('./serve-command.js')).serveCommand(flags);
}

/** `stratus credentials [--data-dir DIR] [--json | --env]`. */
async function credentialsCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args.length > 0) throw new ConfigError(`stratus credentials takes no arguments, got "${args.join(' ')}"; see stratus credentials --help`);
  if (flags.json === 'true' && flags.env === 'true') throw new ConfigError('stratus credentials takes --json or --env, not both');
  const config = loadConfig({ ...flags }, process.env);
  const saved = readSavedCredentials(config.dataDir);
  process.stdout.write(flags.env === 'true' ? await formatEnv(saved, config) : formatCredentials(saved, flags.json === 'true'));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof AppError) { process.stderr.write(`stratus: ${err.message}\n`); process.exit(2); }
    process.stderr.write(`stratus: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
