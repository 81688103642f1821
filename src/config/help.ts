/**
 * `stratus --help` and `stratus <command> --help`, and the flags table of docs/configuration.md, all rendered from the flag
 * table (flags.ts) so that none of them can miss a flag.
 */
import { envName, flagEnv, flagsOf, type FlagCommand, type FlagSpec } from './flags.js';

/** A command as `stratus --help` lists it. */
export interface CommandSpec {
  name: FlagCommand;
  usage: string;
  summary: string;
}

/** Every command, in the order help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: 'serve', usage: 'stratus serve [flags]', summary: 'run the v4 API, the DNS server, the S3 API and the edge listener (deployed scripts and proxied hostnames, in workerd) on the configured stores' },
  { name: 'dev', usage: 'stratus dev [SCRIPT] [flags]', summary: "run a wrangler project's edge script from its folder (wrangler.toml, wrangler.json or wrangler.jsonc there, or --config) with the buckets of its config" },
  { name: 'user', usage: 'stratus user add --email EMAIL [--key KEY] [flags]', summary: "create a user with an account of its own (or set an existing user's key); prints the e-mail, key and account id" },
  { name: 'credentials', usage: 'stratus credentials [--data-dir DIR] [--json | --env]', summary: 'print the admin e-mail, key and API token and the S3 key pair generated into the data folder (--env: as export lines for the AWS CLI and wrangler)' },
  { name: 'zone import', usage: 'stratus zone import --zone NAME FILE [flags]', summary: "import a BIND zone file of any size into a zone of a running Stratus over the v4 API (split into requests under the API's 256 KiB cap)" },
  { name: 'zone export', usage: 'stratus zone export --zone NAME [--out FILE] [flags]', summary: "write a zone of a running Stratus as a BIND zone file (the v4 API's export)" },
  { name: 'backup', usage: 'stratus backup --to DIR [--data-dir DIR] [--blobs-dir DIR]', summary: 'copy the embedded store (SQLite databases, object bodies, generated secrets) while Stratus runs, with a manifest of checksums' },
  { name: 'ca', usage: 'stratus ca export [--data-dir DIR] [--database-url URL]', summary: 'print the root certificate (PEM) of the local CA that issues certificates without --acme-directory, to trust it (made on first use)' },
  { name: 'restore', usage: 'stratus restore --from DIR [--data-dir DIR] [--blobs-dir DIR]', summary: 'check a backup against its manifest and write it into a new or empty data folder' },
];

/** The top-level help: commands, then where each command's flags are. */
export function mainHelp(version: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `stratus ${version}\n\nusage: stratus <command> [flags]\n\ncommands:\n`
    + COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}\n`).join('')
    + `\n\`stratus <command> --help\` lists the flags of a command, each with its default and environment variable\n`
    + `(STRATUS_<NAME>; a flag wins over its variable). \`stratus --version\` prints the version.\n`;
}

/** The help of one command: usage, summary and every flag it takes. */
export function commandHelp(command: FlagCommand): string {
  const spec = COMMANDS.find((c) => c.name === command)!;
  const flags = flagsOf(command);
  const lefts = flags.map(flagUsage);
  const width = Math.min(34, Math.max(...lefts.map((l) => l.length)));
  const lines = flags.map((f, i) => {
    const left = lefts[i]!;
    const env = flagEnv(f);
    const tail = `(default: ${f.default}${env === undefined ? '' : `; env ${env}`})`;
    const head = left.length > width ? `  ${left}\n  ${' '.repeat(width)}  ` : `  ${left.padEnd(width)}  `;
    return `${head}${f.help}\n  ${' '.repeat(width)}  ${tail}\n`;
  });
  return `usage: ${spec.usage}\n\n${spec.summary}\n\nflags:\n${lines.join('')}`;
}

/** `--name VALUE` (or `--name` for a switch). */
function flagUsage(f: FlagSpec): string {
  return f.value === undefined ? `--${f.name}` : `--${f.name} ${f.value}`;
}

/** The flags table of docs/configuration.md of `stratus serve` (Markdown), from the flag table. */
export function readmeFlagsTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = flagsOf('serve').map((f) => `| \`${cell(flagUsage(f))}\` | \`${envName(f.name)}\` | ${cell(f.default)} | ${cell(f.help)} |`);
  return ['| flag | environment variable | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
