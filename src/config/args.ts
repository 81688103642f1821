/**
 * Strict command-line parsing against the flag table (flags.ts): `--name value` or `--name=value`; a flag the
 * command does not take, or one that needs a value and has none, is a ConfigError naming it (and the closest
 * known flag). `--help`/`-h` and `--version` are recognised everywhere.
 */
import { ConfigError } from './config.js';
import { FLAGS, OTHER_VARIABLES, flagEnv, flagsOf, type FlagCommand } from './flags.js';

/** A parsed command line. */
export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string>;
  help: boolean;
  version: boolean;
}

/** Parses `argv` (after the command name) for `command`; throws ConfigError on an unknown or incomplete flag. */
export function parseArgs(argv: string[], command: FlagCommand | undefined): ParsedArgs {
  const known = new Map((command ? flagsOf(command) : []).map((f) => [f.name, f]));
  const out: ParsedArgs = { positional: [], flags: {}, help: false, version: false };
  const see = command ? `stratus ${command} --help` : 'stratus --help';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') { out.positional.push(...argv.slice(i + 1)); break; }
    if (arg === '--help' || arg === '-h') { out.help = true; continue; }
    if (arg === '--version') { out.version = true; continue; }
    if (!arg.startsWith('-') || arg === '-') { out.positional.push(arg); continue; }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const spec = known.get(name);
    if (!spec || !arg.startsWith('--')) {
      const near = closest(name, [...known.keys()]);
      throw new ConfigError(`unknown flag ${arg.startsWith('--') ? '--' : '-'}${name}${near ? ` (did you mean --${near}?)` : ''}; see ${see}`);
    }
    if (eq >= 0) { out.flags[name] = body.slice(eq + 1); continue; }
    if (spec.value === undefined) { out.flags[name] = 'true'; continue; }
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) throw new ConfigError(`--${name} needs a value (${spec.value})`);
    out.flags[name] = next;
    i++;
  }
  return out;
}

/** Warnings for `STRATUS_*` variables that no flag reads (a mistyped name would otherwise be ignored). */
export function unknownVariables(env: Record<string, string | undefined>): string[] {
  const known = FLAGS.map(flagEnv).filter((v): v is string => v !== undefined && v.startsWith('STRATUS_'));
  return Object.keys(env)
    .filter((k) => k.startsWith('STRATUS_') && !known.includes(k) && !OTHER_VARIABLES.includes(k))
    .map((k) => {
      const near = closest(k, known);
      return `unknown environment variable ${k} is ignored${near ? ` (did you mean ${near}?)` : ''}`;
    });
}

/** The candidate nearest to `word` by edit distance, if it is near enough to be a likely typo. */
export function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) { best = c; bestDistance = d; }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions; an adjacent swap counts one). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
