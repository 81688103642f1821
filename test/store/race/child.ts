/**
 * Race child: waits for a start time, then tries `put(key, <its id>, { onlyIf: { etagDoesNotMatch: '*' } })`
 * on each of the given keys and prints which it won, as JSON.
 */
import { openBucketStore } from '../../../src/store/open.js';

const [dataDir, id, startAt, count] = process.argv.slice(2) as [string, string, string, string];
const store = await openBucketStore({ dataDir, sweepOnOpen: false });
const b = store.bucket('race');
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
const won: string[] = [];
for (let i = 0; i < Number(count); i++) {
  const body = `${id}:${i}:` + 'x'.repeat(i % 2 ? 100 : 100_000);
  const res = await b.put(`key-${i}`, body, { onlyIf: { etagDoesNotMatch: '*' } });
  if (res) won.push(`key-${i}`);
}
await store.close();
process.stdout.write(JSON.stringify({ id, won }));
