/**
 * The server side of bench/dns-api.mjs, run as a child process so that the server and the load generator do
 * not share an event loop. `full`: the whole service (`startStratus`: v4 API + DNS server on the change
 * feed). `api`: the v4 API alone on the same database code, without the DNS server. Prints one JSON line
 * `{url, dnsPort?}` when listening; stops on SIGTERM.
 */
import { serve } from '@hono/node-server';
import { loadConfig } from '../dist/config/config.js';
import { startStratus } from '../dist/main.js';
import { silentLogger } from '../dist/shared/logger.js';
import { openDatabase } from '../dist/db/database.js';
import { createApiApp } from '../dist/api/app.js';
import { ZoneChangeFeed } from '../dist/zones/change-feed.js';
import { systemClock } from '../dist/shared/clock.js';
import { bootstrapCredentials } from '../dist/accounts/bootstrap.js';
import { startControlPlane } from '../dist/scripts/control-plane.js';
import { openBucketStore } from '../dist/store/index.js';

const [mode, dataDir, email, key] = process.argv.slice(2);
const config = { ...loadConfig({ http: '127.0.0.1:0', dns: '127.0.0.1:0', 'data-dir': dataDir, 'rate-limit': '0', 'auth-failure-limit': '0' }, {}), authEmail: email, authKey: key };
config.plan = { ...config.plan, recordsPerZone: 10_000_000 };

let close;
if (mode === 'full') {
  const running = await startStratus(config, silentLogger());
  console.log(JSON.stringify({ url: running.httpUrl, dnsPort: running.dnsPort }));
  close = () => running.close();
} else {
  const database = await openDatabase({ dataDir });
  await bootstrapCredentials(database.db, { dataDir, authEmail: email, authKey: key, clock: systemClock });
  // The API's edge dependencies (scripts, bucket domains) as `stratus serve` builds them, on a store in the same folder.
  const changeFeed = new ZoneChangeFeed();
  const store = await openBucketStore({ dataDir });
  const control = startControlPlane({ db: database.db, dataDir, clock: systemClock, logger: silentLogger(), zoneChanges: changeFeed, store });
  const app = createApiApp({ config, clock: systemClock, logger: silentLogger(), db: database.db, changeFeed, edge: control.apiDeps });
  const server = await new Promise((resolve) => { const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s)); });
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` }));
  close = async () => { await new Promise((r) => server.close(r)); await control.close(); await store.close(); await database.close(); };
}
process.once('SIGTERM', () => { close().then(() => process.exit(0)); });
