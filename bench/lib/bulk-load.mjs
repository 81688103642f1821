/**
 * Child process of bench/lib/api-bench.mjs `bulkLoad`: loads records into a zone through the records service
 * (one transaction per 10,000 records) and prints `{seconds, serial}` when done.
 *
 *   node bench/lib/bulk-load.mjs DATA_DIR '{"zone": {"id", "name"}, "records": N, "shape": "plain"|"tagged"}'
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../dist/config/config.js';
import { openDatabase } from '../../dist/db/database.js';
import { RecordsService } from '../../dist/zones/records-service.js';
import { ZoneChangeFeed } from '../../dist/zones/change-feed.js';
import { systemClock } from '../../dist/shared/clock.js';

const [dataDir, spec] = process.argv.slice(2);
const { zone, records: total, shape } = JSON.parse(spec);
const database = await openDatabase({ dataDir });
const plan = { ...loadConfig({}, {}).plan, recordsPerZone: 10_000_000, tagsPerRecord: 20 };
const records = new RecordsService(database.db, systemClock, new ZoneChangeFeed(), plan, []);
const t0 = performance.now();
for (let start = 0; start < total; start += 10_000) {
  await records.transaction(zone, async (tx) => {
    for (let i = start; i < Math.min(total, start + 10_000); i++) {
      const extra = shape === 'tagged' && i % 10 === 0 ? { comment: `bench record ${i}`, tags: [`shard:s${i % 100}`, `owner:team${i % 7}`] } : {};
      await tx.create({ type: i % 3 === 0 ? 'TXT' : 'A', name: `host${i}`, content: i % 3 === 0 ? `v=${i}` : `198.51.100.${i % 250 + 1}`, ttl: 1, ...extra }, { apiDate: '2025-06-01', warnings: [] });
    }
  });
}
const seconds = (performance.now() - t0) / 1000;
const { serial } = await database.db.selectFrom('zones').select('serial').where('id', '=', zone.id).executeTakeFirstOrThrow();
await database.close();
console.log(JSON.stringify({ seconds, serial: Number(serial) }));
