/**
 * `stratus restore`: checks a backup folder against its manifest and writes it into a new (absent or empty)
 * data folder. Every file is copied while its SHA-256 is computed; a file that is missing, of the wrong size
 * or of the wrong hash stops the restore, and what was written is removed, so a damaged backup never becomes a
 * data folder. Finally every blob that the restored `buckets.sqlite` references must have been restored.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../config/config.js';
import { clearFolder, copyHashing, eachLimited, folderState } from './files.js';
import { readManifest, MANIFEST_FILE, type BackupFile } from './manifest.js';
import { BUCKETS_DATABASE, blobPath } from '../../shared/data-dir.js';
import { referencedBlobIds } from './sqlite-copy.js';
import { Progress, formatBytes, type LineSink } from './progress.js';

/** Options of {@link runRestore}. */
export interface RestoreOptions {
  from: string;
  dataDir: string;
  /** Where the blobs go (default `<dataDir>/blobs`); must be absent or empty too. */
  blobsDir: string;
  say: LineSink;
}

/** What was restored. */
export interface RestoreSummary {
  files: number;
  bytes: number;
  created: string;
  stratusVersion: string;
}

const LANES = 4;

/** Restores; ConfigError (one line) for a used target or a damaged backup, with nothing left written. */
export async function runRestore(o: RestoreOptions): Promise<RestoreSummary> {
  const from = path.resolve(o.from);
  const dataDir = path.resolve(o.dataDir);
  const blobsDir = path.resolve(o.blobsDir);
  const manifest = readManifest(from);
  const targets = [[dataDir, '--data-dir'], ...(blobsDir.startsWith(dataDir + path.sep) ? [] : [[blobsDir, '--blobs-dir']])] as const;
  for (const [dir, flag] of targets) {
    if (folderState(dir) === 'used') throw new ConfigError(`${flag} ${dir} is not empty: stratus restore writes only into a new or empty folder (nothing was written)`);
  }
  const damaged = (what: string) => new ConfigError(`the backup in ${from} is damaged: ${what} (nothing was restored)`);
  for (const f of manifest.files) {
    const st = await fsp.stat(path.join(from, f.path)).catch(() => undefined);
    if (!st?.isFile()) throw damaged(`${f.path} is missing`);
    if (st.size !== f.size) throw damaged(`${f.path} has ${st.size} bytes, ${MANIFEST_FILE} says ${f.size}`);
  }
  const existed = targets.map(([dir]) => fs.existsSync(dir));
  const progress = new Progress(o.say, 'stratus restore');
  try {
    for (const [dir] of targets) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    progress.phase(`checking and copying ${manifest.files.length} files (${formatBytes(manifest.bytes)}) from a backup of ${manifest.created}`);
    progress.reset();
    await eachLimited(manifest.files, LANES, async (f) => {
      const digest = await copyHashing(path.join(from, f.path), destination(f, dataDir, blobsDir), f.kind === 'secret' ? 0o600 : 0o644);
      if (digest.sha256 !== f.sha256 || digest.size !== f.size) throw damaged(`${f.path} does not match its SHA-256 in ${MANIFEST_FILE}`);
      progress.add(f.size, 'files', manifest.files.length, manifest.bytes);
    });
    const buckets = path.join(dataDir, BUCKETS_DATABASE);
    if (fs.existsSync(buckets)) {
      const restored = new Set(manifest.files.filter((f) => f.kind === 'blob').map((f) => f.path));
      const missing = referencedBlobIds(buckets).filter((id) => !restored.has(blobPath(id)));
      if (missing.length > 0) throw damaged(`${missing.length} object bodies that ${BUCKETS_DATABASE} references are not in it (first: ${missing[0]})`);
    }
  } catch (err) {
    for (let i = 0; i < targets.length; i++) await clearFolder(targets[i]![0], !existed[i]);
    throw err;
  }
  return { files: manifest.files.length, bytes: manifest.bytes, created: manifest.created, stratusVersion: manifest.stratusVersion };
}

/** Where a backed-up file goes: blobs into the blobs folder, the rest into the data folder. */
function destination(f: BackupFile, dataDir: string, blobsDir: string): string {
  if (f.kind === 'blob') return path.join(blobsDir, ...f.path.split('/').slice(1));
  return path.join(dataDir, ...f.path.split('/'));
}
