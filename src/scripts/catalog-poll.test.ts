import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { openDatabase, type OpenDatabase } from '../db/database.js';
import { DatabaseEdgeCatalog } from './catalog.js';
import { EdgeChanges } from '../db/edge-serial.js';
import { SecretBox } from '../shared/secret-box.js';
import { silentLogger } from '../shared/logger.js';

let database: OpenDatabase | undefined;
let dir: string | undefined;
afterEach(async () => {
  await database?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it('a poll of the edge serial that is reading when the catalog closes does not start another (no query of the database after close)', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-catalog-poll-'));
  database = await openDatabase({ dataDir: dir });
  let queries = 0;
  const counting: KyselyPlugin = { transformQuery: (a) => { queries++; return a.node; }, transformResult: async (a) => a.result };
  const catalog = new DatabaseEdgeCatalog({ db: database.db.withPlugin(counting), box: new SecretBox(randomBytes(32)), changes: new EdgeChanges(), workersDomain: 'workers.example', logger: silentLogger(), pollMs: 1 });
  catalog.start();
  expect(queries).toBe(1); // the first poll is reading
  catalog.close();
  // A timer set now fires after the 1 ms timer a poll would have set on finishing (timers fire in deadline order).
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(queries).toBe(1);
});
