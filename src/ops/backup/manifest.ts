/**
 * The manifest of a backup folder (`manifest.json`, written last: a folder without one is not a finished
 * backup): what was copied, with each file's size and SHA-256, so that `stratus restore` can refuse a damaged
 * or incomplete copy before the data is used.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config/config.js';
import { BUCKETS_DATABASE, CORE_DATABASE, SECRET_FILES } from '../../shared/data-dir.js';

/** Name of the manifest inside a backup folder. */
export const MANIFEST_FILE = 'manifest.json';
/** The `format` field of every manifest. */
export const MANIFEST_FORMAT = 'stratus-backup';
/** Version of the layout; restore refuses versions it does not know. */
export const MANIFEST_VERSION = 1;

/** What a file of the backup is. */
export type BackupFileKind = 'database' | 'blob' | 'secret';

/** One copied file; `path` is relative to the backup folder, with `/` separators. */
export interface BackupFile {
  path: string;
  kind: BackupFileKind;
  size: number;
  sha256: string;
}

/** The manifest as written. */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: typeof MANIFEST_VERSION;
  /** Version of the Stratus that took the backup. */
  stratusVersion: string;
  /** ISO time the backup started (its databases are as of a moment shortly after). */
  created: string;
  /** The data folder it was taken from (informative). */
  source: string;
  /** Total bytes of the files. */
  bytes: number;
  files: BackupFile[];
}

/** Writes the manifest atomically (temporary name, then rename). */
export function writeManifest(dir: string, manifest: Manifest): void {
  const tmp = path.join(dir, `${MANIFEST_FILE}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(manifest, null, 1) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, path.join(dir, MANIFEST_FILE));
}

/** Reads and checks the manifest of `dir`; a ConfigError names what is wrong. */
export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(dir)) throw new ConfigError(`--from ${dir} does not exist`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`${dir} is not a finished Stratus backup: ${MANIFEST_FILE} is missing`);
  }
  let m: Partial<Manifest>;
  try {
    m = JSON.parse(text) as Partial<Manifest>;
  } catch {
    throw new ConfigError(`the backup in ${dir} is damaged: ${MANIFEST_FILE} is not JSON`);
  }
  if (m.format !== MANIFEST_FORMAT) throw new ConfigError(`${file} is not a Stratus backup manifest`);
  if (m.version !== MANIFEST_VERSION) throw new ConfigError(`the backup in ${dir} has layout version ${String(m.version)}; this Stratus reads version ${MANIFEST_VERSION}`);
  if (!Array.isArray(m.files) || !m.files.every(validFile)) throw new ConfigError(`the backup in ${dir} is damaged: ${MANIFEST_FILE} lists malformed files`);
  return m as Manifest;
}

/** Paths a manifest may name, by kind: restore writes nothing else. */
const PATHS: Record<BackupFileKind, (p: string) => boolean> = {
  blob: (p) => /^blobs\/([0-9a-f]{2})\/\1[0-9a-f]{78}$/.test(p),
  database: (p) => p === CORE_DATABASE || p === BUCKETS_DATABASE,
  secret: (p) => SECRET_FILES.includes(p),
};

/** A file entry of a known kind, at a path of that kind, with well-formed fields. */
function validFile(f: unknown): f is BackupFile {
  if (typeof f !== 'object' || f === null) return false;
  const e = f as Record<string, unknown>;
  const kind = e.kind as BackupFileKind;
  return typeof e.path === 'string' && Object.hasOwn(PATHS, kind) && PATHS[kind](e.path)
    && Number.isSafeInteger(e.size) && (e.size as number) >= 0 && typeof e.sha256 === 'string' && /^[0-9a-f]{64}$/.test(e.sha256);
}
