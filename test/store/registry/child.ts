/**
 * Registry child: waits for a start time, opens the store on the given folder (which fills the bucket
 * registry of an old folder) and prints the buckets it lists, as JSON.
 */
import { openBucketStore } from '../../../src/store/open.js';

const [dataDir, startAt] = process.argv.slice(2) as [string, string];
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
const store = await openBucketStore({ dataDir, sweepOnOpen: false });
const buckets = await store.listBuckets();
await store.close();
process.stdout.write(JSON.stringify(buckets.map((b) => ({ name: b.name, created: b.created.getTime() }))));
