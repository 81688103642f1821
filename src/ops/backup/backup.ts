/**
 * `stratus backup`: a consistent copy of a data folder's embedded store while Stratus runs on it.
 *
 * Order, and why the copy holds every body its rows reference:
 *  1. a hold on garbage collection is taken in `buckets.sqlite` (gc-hold.ts), committed;
 *  2. `buckets.sqlite` is copied as of one commit (`VACUUM INTO`, sqlite-copy.ts). A row committed by then
 *     points at a blob that was complete on disk before its commit (blobs are written, then renamed into place,
 *     then the row commits); a blob that a later commit stops referencing only joins the garbage list, which
 *     nothing empties while the hold is valid, and the orphan sweep spares blobs on that list;
 *  3. `stratus.sqlite` is copied the same way (after the buckets: a bucket's account, created before it, is in
 *     the later copy);
 *  4. every blob the copied rows reference is hard-linked (or copied) into the backup and hashed; the hold is
 *     checked (it never lapsed) and released;
 *  5. the generated secrets are copied, and `manifest.json` is written last.
 * Each database is a state that existed; the two are seconds apart at most, as two files always are.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../config/config.js';
import { GcHold } from './gc-hold.js';
import { copyDatabase, referencedBlobIds } from './sqlite-copy.js';
import { clearFolder, copyHashing, eachLimited, folderState, hashFile, linkOrCopy } from './files.js';
import { MANIFEST_FORMAT, MANIFEST_VERSION, writeManifest, type BackupFile } from './manifest.js';
import { BUCKETS_DATABASE, CORE_DATABASE, SECRET_FILES, blobPath, isKnownEntry } from '../../shared/data-dir.js';
import { Progress, formatBytes, type LineSink } from './progress.js';

/** Options of {@link runBackup}. */
export interface BackupOptions {
  dataDir: string;
  /** The blobs folder `stratus serve` uses (default `<dataDir>/blobs`). */
  blobsDir: string;
  /** The backup folder: absent or empty. */
  to: string;
  stratusVersion: string;
  /** Progress lines. */
  say: LineSink;
  /** Runs after the databases are copied and before the blobs are (tests use it to write and collect meanwhile). */
  afterSnapshot?: () => Promise<void>;
}

/** What a finished backup holds. */
export interface BackupSummary {
  files: number;
  blobs: number;
  /** Blobs hard-linked rather than copied. */
  linked: number;
  bytes: number;
  /** Top-level entries of the data folder that are not Stratus's and were not copied. */
  skipped: string[];
}

const BLOB_LANES = 4;

/** Takes the backup; ConfigError (one line) for an operator's mistake or an unusable source. */
export async function runBackup(o: BackupOptions): Promise<BackupSummary> {
  const dataDir = path.resolve(o.dataDir);
  const to = path.resolve(o.to);
  checkPlaces(dataDir, path.resolve(o.blobsDir), to);
  const state = folderState(to);
  fs.mkdirSync(to, { recursive: true, mode: 0o700 });
  const progress = new Progress(o.say, 'stratus backup');
  const created = new Date().toISOString();
  let hold: GcHold | undefined;
  try {
    const files: BackupFile[] = [];
    let blobIds: string[] = [];
    const buckets = path.join(dataDir, BUCKETS_DATABASE);
    if (fs.existsSync(buckets)) {
      progress.phase(`holding garbage collection; copying ${BUCKETS_DATABASE} (online)`);
      hold = GcHold.take(buckets);
      const held = hold.name;
      copyDatabase(buckets, path.join(to, BUCKETS_DATABASE), (copy) => { copy.prepare('DELETE FROM store_leases WHERE name = ?').run(held); });
      hold.check();
      blobIds = referencedBlobIds(path.join(to, BUCKETS_DATABASE));
    }
    progress.phase(`copying ${CORE_DATABASE} (online)`);
    copyDatabase(path.join(dataDir, CORE_DATABASE), path.join(to, CORE_DATABASE));
    await o.afterSnapshot?.();
    const linked = await copyBlobs(blobIds, path.resolve(o.blobsDir), to, files, progress);
    hold?.check();
    hold?.release();
    hold = undefined;
    for (const name of SECRET_FILES) {
      const source = path.join(dataDir, name);
      if (fs.existsSync(source)) files.push({ path: name, kind: 'secret', ...(await copyHashing(source, path.join(to, name), 0o600)) });
    }
    for (const name of [BUCKETS_DATABASE, CORE_DATABASE]) {
      if (fs.existsSync(path.join(to, name))) files.push({ path: name, kind: 'database', ...(await hashFile(path.join(to, name))) });
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const bytes = files.reduce((n, f) => n + f.size, 0);
    writeManifest(to, { format: MANIFEST_FORMAT, version: MANIFEST_VERSION, stratusVersion: o.stratusVersion, created, source: dataDir, bytes, files });
    const skipped = fs.readdirSync(dataDir).filter((n) => !isKnownEntry(n)).sort();
    return { files: files.length, blobs: blobIds.length, linked, bytes, skipped };
  } catch (err) {
    try { hold?.release(); } catch { /* the lease lapses by itself */ }
    // A failed backup leaves nothing that looks like one: the folder goes back to how it was (absent or empty).
    await clearFolder(to, state === 'absent');
    throw err;
  }
}

/** Refuses a missing data folder, a used target, or a target inside the data or blobs folder. */
function checkPlaces(dataDir: string, blobsDir: string, to: string): void {
  if (!fs.existsSync(path.join(dataDir, CORE_DATABASE))) {
    throw new ConfigError(`--data-dir ${dataDir} holds no Stratus data (no ${CORE_DATABASE}): give the folder stratus serve uses`);
  }
  for (const [flag, dir] of [['--data-dir', dataDir], ['--blobs-dir', blobsDir]] as const) {
    if (to === dir || to.startsWith(dir + path.sep)) throw new ConfigError(`--to ${to} lies inside ${flag} ${dir}: put the backup elsewhere`);
  }
  if (folderState(to) === 'used') throw new ConfigError(`--to ${to} is not an empty folder: a backup goes into a new or empty folder`);
}

/** Links or copies every referenced blob into `to/blobs`, hashing each; returns how many were linked. */
async function copyBlobs(ids: string[], blobsDir: string, to: string, files: BackupFile[], progress: Progress): Promise<number> {
  if (ids.length === 0) return 0;
  const sources = ids.map((id) => path.join(blobsDir, id.slice(0, 2), id));
  let total = 0;
  for (let i = 0; i < ids.length; i++) {
    const st = await fsp.stat(sources[i]!).catch(() => undefined);
    if (!st) {
      throw new ConfigError(`blob ${ids[i]} that ${BUCKETS_DATABASE} references is missing from ${blobsDir}: give the --blobs-dir stratus serve uses`
        + ' (bodies kept in S3 with --blobs-s3-bucket are not copied by stratus backup)');
    }
    total += st.size;
  }
  progress.phase(`copying ${ids.length} object bodies (${formatBytes(total)}) from ${blobsDir}`);
  progress.reset();
  let linked = 0;
  const order = ids.map((_, i) => i);
  await eachLimited(order, BLOB_LANES, async (i) => {
    const rel = blobPath(ids[i]!);
    const dest = path.join(to, rel);
    if ((await linkOrCopy(sources[i]!, dest)) === 'link') linked++;
    const digest = await hashFile(dest);
    files.push({ path: rel, kind: 'blob', ...digest });
    progress.add(digest.size, 'bodies', ids.length, total);
  });
  return linked;
}
