/**
 * `stratus credentials [--data-dir DIR] [--json]`: prints the admin e-mail, global key and API token and the
 * S3 key pair that the first start generated into the data folder (credentials.json, s3-credentials.json),
 * whenever asked. Credentials configured by flags or variables are not saved, so there is nothing to print.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/config.js';
import { CREDENTIALS_FILE, S3_CREDENTIALS_FILE } from '../shared/data-dir.js';

/** What the data folder holds. */
export interface SavedCredentials {
  admin?: { email: string; key: string; api_token: string; file: string };
  s3?: { access_key_id: string; secret_access_key: string; file: string };
}

/** Reads the generated credentials of `dataDir`; ConfigError when the folder or both files are missing. */
export function readSavedCredentials(dataDir: string): SavedCredentials {
  if (!fs.existsSync(dataDir)) throw new ConfigError(`--data-dir ${dataDir} does not exist: give the data folder stratus serve uses`);
  const out: SavedCredentials = {};
  const adminFile = path.join(dataDir, CREDENTIALS_FILE);
  const admin = readJson(adminFile);
  if (admin && typeof admin.email === 'string' && typeof admin.key === 'string') {
    out.admin = { email: admin.email, key: admin.key, api_token: String(admin.api_token ?? ''), file: adminFile };
  }
  const s3File = path.join(dataDir, S3_CREDENTIALS_FILE);
  const s3 = readJson(s3File);
  if (s3 && typeof s3.accessKeyId === 'string' && typeof s3.secretAccessKey === 'string') {
    out.s3 = { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, file: s3File };
  }
  if (!out.admin && !out.s3) {
    throw new ConfigError(`no generated credentials in ${dataDir} (they are generated on the first start without --auth-email/--auth-key`
      + ' and --s3-access-key-id; configured ones are not saved)');
  }
  return out;
}

/** The text `stratus credentials` prints. */
export function formatCredentials(c: SavedCredentials, json: boolean): string {
  if (json) {
    const strip = <T extends { file: string }>(v: T | undefined) => v && Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'file'));
    return `${JSON.stringify({ ...(c.admin ? { admin: strip(c.admin) } : {}), ...(c.s3 ? { s3: strip(c.s3) } : {}) })}\n`;
  }
  let text = '';
  if (c.admin) {
    text += `admin credentials (${c.admin.file}):\n  X-Auth-Email: ${c.admin.email}\n  X-Auth-Key:   ${c.admin.key}\n`
      + (c.admin.api_token ? `  Authorization: Bearer ${c.admin.api_token}\n` : '');
  }
  if (c.s3) text += `S3 credentials (${c.s3.file}):\n  access key id:     ${c.s3.access_key_id}\n  secret access key: ${c.s3.secret_access_key}\n`;
  return text;
}

/** Reads a JSON object, or undefined when the file is absent; ConfigError when it cannot be read. */
function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message.split('\n')[0]} (run as the user that runs stratus serve)`);
  }
}
