/** File operations of backup and restore: hashing, hard-link-or-copy, copying while hashing, empty-folder checks. */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/** Size and SHA-256 (hex) of a file. */
export interface FileDigest {
  size: number;
  sha256: string;
}

/** Reads `file` through and returns its size and SHA-256. */
export async function hashFile(file: string): Promise<FileDigest> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).byteLength;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * Makes `dest` a hard link to `source` when both are on one file system (blobs are immutable, so a link is as
 * good as a copy and costs no space), else a copy. Returns which.
 */
export async function linkOrCopy(source: string, dest: string): Promise<'link' | 'copy'> {
  await fsp.mkdir(path.dirname(dest), { recursive: true });
  try {
    await fsp.link(source, dest);
    return 'link';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK' && code !== 'ENOTSUP') throw err;
  }
  await fsp.copyFile(source, dest, fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE);
  return 'copy';
}

/** Copies `source` to `dest` (new file, `mode`), hashing the bytes on the way, and fsyncs it. */
export async function copyHashing(source: string, dest: string, mode = 0o644): Promise<FileDigest> {
  await fsp.mkdir(path.dirname(dest), { recursive: true });
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.byteLength;
      done(null, chunk);
    },
  });
  const out = fs.createWriteStream(dest, { flags: 'wx', mode });
  await pipeline(fs.createReadStream(source, { highWaterMark: 1024 * 1024 }), tap, out);
  const fh = await fsp.open(dest, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  return { size, sha256: hash.digest('hex') };
}

/** 'absent', 'empty' (an empty folder) or 'used' (a file, or a folder with entries). */
export function folderState(dir: string): 'absent' | 'empty' | 'used' {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return 'absent';
  }
  if (!st.isDirectory()) return 'used';
  return fs.readdirSync(dir).length === 0 ? 'empty' : 'used';
}

/** Runs `work` on every item with at most `limit` at once; the first failure stops new work and is thrown. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const lane = async (): Promise<void> => {
    while (failed === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failed !== undefined) throw failed;
}

/** Removes what a failed run wrote into `dir`, and `dir` itself when `removeItself` (it did not exist before). */
export async function clearFolder(dir: string, removeItself: boolean): Promise<void> {
  if (removeItself) {
    await fsp.rm(dir, { recursive: true, force: true });
    return;
  }
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) await fsp.rm(path.join(dir, name), { recursive: true, force: true });
}
