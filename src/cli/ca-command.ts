/** `stratus ca export`: the local certificate authority's root, to trust where Stratus's certificates are used. */
import { ConfigError, loadConfig } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { localRoot } from '../certs/local-ca.js';
import { resolveSecretsKey, SecretBox } from '../shared/secret-box.js';
import { systemClock } from '../shared/clock.js';
import { preflight } from './preflight.js';

/** `stratus ca export`: prints the local CA's root certificate (made and stored on first use). */
export async function caCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args[0] !== 'export' || args.length > 1) throw new ConfigError('usage: stratus ca export [--data-dir DIR] [--database-url URL]; see stratus ca --help');
  const config = loadConfig(flags, process.env);
  await preflight({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, blobsS3: undefined });
  const database = await openDatabase({ dataDir: config.dataDir, url: config.databaseUrl });
  try {
    const key = resolveSecretsKey({ dataDir: config.dataDir, configured: config.secretsKey });
    const root = await localRoot(database.db, new SecretBox(key.key), systemClock);
    process.stdout.write(root.certificatePem.endsWith('\n') ? root.certificatePem : `${root.certificatePem}\n`);
    return 0;
  } finally {
    await database.close();
  }
}
