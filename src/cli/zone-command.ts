/**
 * `stratus zone import --zone NAME FILE` and `stratus zone export --zone NAME [--out FILE]`: clients of a
 * running Stratus's v4 API (`POST /zones/:id/dns_records/import`, `GET /zones/:id/dns_records/export`), with
 * wrangler's variables for the base URL and credentials (api-client.ts).
 *
 * Import checks the whole file locally first, then sends it in pieces under the per-request cap
 * (zone-split.ts), showing records done. Each piece is one transaction on the server; a failing piece stops
 * the import with `FILE:LINE: message (code N)`, the pieces before it stay imported, and running the same
 * import again is harmless (records already in the zone are not added twice). Exit status: 0 done, 1 the
 * server refused or could not be reached, 2 a usage or file mistake.
 */
import fs from 'node:fs';
import { ConfigError } from '../config/config.js';
import { parseArgs } from '../config/args.js';
import { commandHelp } from '../config/help.js';
import type { FlagCommand } from '../config/flags.js';
import { MAX_ZONE_FILE_BYTES } from '../zones/zonefile/import.js';
import { ApiCallError, apiResult, apiCall, apiTarget, findZoneId } from './api-client.js';
import { Progress } from './progress.js';
import { checkZoneFile, splitZoneFile, ZoneFileLineError } from './zone-split.js';
import { packageVersion } from './version.js';

/** Both subcommands' help. */
export function zoneHelp(): string {
  return `${commandHelp('zone import')}\n${commandHelp('zone export')}`;
}

/** Runs `stratus zone …` (argv after `zone`); resolves the exit status. */
export async function zoneCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const sub = argv[0];
  if (sub === undefined || sub.startsWith('-')) {
    if (argv.includes('--help') || argv.includes('-h')) { process.stdout.write(zoneHelp()); return 0; }
    process.stderr.write(`stratus zone: say import or export\n\n${zoneHelp()}`);
    return 2;
  }
  if (sub !== 'import' && sub !== 'export') throw new ConfigError(`unknown command "zone ${sub}": use zone import or zone export; see stratus zone --help`);
  const command = `zone ${sub}` as FlagCommand;
  const args = parseArgs(argv.slice(1), command);
  if (args.version) { process.stdout.write(`${packageVersion()}\n`); return 0; }
  if (args.help) { process.stdout.write(commandHelp(command)); return 0; }
  const zone = args.flags.zone?.replace(/\.$/, '').toLowerCase();
  if (!zone) throw new ConfigError(`stratus ${command} needs --zone NAME; see stratus ${command} --help`);
  try {
    return sub === 'import' ? await importCommand(zone, args.positional, args.flags, env) : await exportCommand(zone, args.positional, args.flags, env);
  } catch (err) {
    if (err instanceof ApiCallError) { process.stderr.write(`stratus ${command}: ${err.message}\n`); return 1; }
    throw err;
  }
}

async function importCommand(zone: string, positional: string[], flags: Record<string, string>, env: NodeJS.ProcessEnv): Promise<number> {
  if (positional.length !== 1) throw new ConfigError(`stratus zone import takes one FILE, got ${positional.length}; see stratus zone import --help`);
  const file = positional[0]!;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const target = apiTarget(flags, env);
  let total: number;
  let pieces;
  try {
    total = checkZoneFile(text, zone);
    pieces = splitZoneFile(text, zone, MAX_ZONE_FILE_BYTES);
  } catch (err) {
    if (err instanceof ZoneFileLineError) throw new ConfigError(`${file}:${err.line}: ${err.message}${err.code !== undefined ? ` (code ${err.code})` : ''}`);
    throw err;
  }
  const zoneId = await findZoneId(target, zone);
  const progress = new Progress(process.stderr, `importing ${zone}`, total);
  let done = 0;
  let added = 0;
  progress.update(0);
  for (const [i, piece] of pieces.entries()) {
    const form = new FormData();
    form.append('file', new Blob([piece.text], { type: 'text/plain' }), 'zone.txt');
    form.append('proxied', flags.proxied === 'true' ? 'true' : 'false');
    let result: { recs_added: number; total_records_parsed: number };
    try {
      result = await apiResult(target, 'POST', `/zones/${zoneId}/dns_records/import`, form);
    } catch (err) {
      progress.finish();
      if (!(err instanceof ApiCallError)) throw err;
      const where = err.messages.map((m) => /^Zone file line (\d+): /.exec(m)).find((m) => m !== null);
      const line = where ? piece.fileLine(Number(where[1])) : undefined;
      const message = err.messages.length > 0
        ? err.messages.map((m, k) => `${m.replace(/^Zone file line \d+: /, '')} (code ${err.codes[k]})`).join('; ')
        : err.message;
      const kept = i === 0 ? 'nothing was imported' : `the records before it are imported (${added} added); running the same import again skips them`;
      throw new ApiCallError(`${line !== undefined ? `${file}:${line}: ` : `${file}: `}${message}; ${kept}`, err.status, err.codes, err.messages);
    }
    done += piece.records;
    added += result.recs_added;
    progress.update(done);
  }
  progress.finish();
  process.stdout.write(`imported ${file} into ${zone}: ${added} records added, ${total - added} already there (${pieces.length} request${pieces.length === 1 ? '' : 's'})\n`);
  return 0;
}

async function exportCommand(zone: string, positional: string[], flags: Record<string, string>, env: NodeJS.ProcessEnv): Promise<number> {
  if (positional.length > 0) throw new ConfigError(`stratus zone export takes no arguments, got "${positional.join(' ')}" (write to a file with --out FILE)`);
  const target = apiTarget(flags, env);
  const zoneId = await findZoneId(target, zone);
  const res = await apiCall(target, 'GET', `/zones/${zoneId}/dns_records/export`);
  const text = await res.text();
  if (flags.out === undefined) {
    // The process exits right after: wait until a pipe has taken the whole text.
    await new Promise<void>((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())));
    return 0;
  }
  try {
    fs.writeFileSync(flags.out, text);
  } catch (err) {
    throw new ConfigError(`--out ${flags.out}: cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  process.stderr.write(`exported ${zone} to ${flags.out} (${text.split('\n').filter((l) => l !== '' && !l.startsWith(';')).length} lines)\n`);
  return 0;
}
