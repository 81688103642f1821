/**
 * `stratus backup --to DIR` and `stratus restore --from DIR` (src/ops/backup/): flags to options, progress on
 * standard error, one summary line on standard output. A failure of the file system (disk full, permission) is
 * one line too, like every operator mistake (exit status 2).
 */
import path from 'node:path';
import { ConfigError } from '../config/config.js';
import { runBackup } from '../ops/backup/backup.js';
import { runRestore } from '../ops/backup/restore.js';
import { formatBytes } from '../ops/backup/progress.js';
import { packageVersion } from './version.js';
import { dataPath, BLOBS } from '../shared/data-dir.js';

/** Folders of a backup or restore, from flags and `STRATUS_DATA_DIR` / `STRATUS_BLOBS_DIR`. */
function folders(flags: Record<string, string>, env: NodeJS.ProcessEnv): { dataDir: string; blobsDir: string } {
  const dataDir = path.resolve(flags['data-dir'] ?? env.STRATUS_DATA_DIR ?? './.stratus');
  const blobsDir = path.resolve(flags['blobs-dir'] ?? env.STRATUS_BLOBS_DIR ?? dataPath(dataDir, BLOBS));
  return { dataDir, blobsDir };
}

/** Lines of progress to standard error. */
const say = (line: string): void => { process.stderr.write(`${line}\n`); };

/** `stratus backup --to DIR [--data-dir DIR] [--blobs-dir DIR]`. */
export async function backupCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args.length > 0) throw new ConfigError(`stratus backup takes no arguments, got "${args.join(' ')}"; see stratus backup --help`);
  if (flags.to === undefined) throw new ConfigError('stratus backup needs --to DIR (a new or empty folder); see stratus backup --help');
  const started = Date.now();
  const s = await oneLine(runBackup({ ...folders(flags, process.env), to: flags.to, stratusVersion: packageVersion(), say }));
  for (const name of s.skipped) say(`stratus backup: note: ${name} in the data folder is not a file Stratus writes; not copied`);
  process.stdout.write(`backup written to ${path.resolve(flags.to)}: ${s.files} files, ${formatBytes(s.bytes)} (${s.blobs} object bodies, ${s.linked} hard-linked) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return 0;
}

/** `stratus restore --from DIR [--data-dir DIR] [--blobs-dir DIR]`. */
export async function restoreCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args.length > 0) throw new ConfigError(`stratus restore takes no arguments, got "${args.join(' ')}"; see stratus restore --help`);
  if (flags.from === undefined) throw new ConfigError('stratus restore needs --from DIR (a folder written by stratus backup); see stratus restore --help');
  const { dataDir, blobsDir } = folders(flags, process.env);
  const s = await oneLine(runRestore({ from: flags.from, dataDir, blobsDir, say }));
  process.stdout.write(`restored ${s.files} files (${formatBytes(s.bytes)}) of the backup of ${s.created} (Stratus ${s.stratusVersion}) into ${dataDir}\n`);
  return 0;
}

/** A file system error (ENOSPC, EACCES, …) as a ConfigError: one line, exit status 2, no stack. */
async function oneLine<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw new ConfigError(`${(err as Error).message} (nothing usable was written)`);
    if (err instanceof Error && err.name === 'SqliteError') throw new ConfigError(`SQLite: ${err.message} (nothing usable was written)`);
    throw err;
  }
}
