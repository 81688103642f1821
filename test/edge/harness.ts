/** An edge runtime on a temporary store with an in-memory catalog, for the runtime's own tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEdge, type RunningEdge } from '../../src/runtime/start-edge.js';
import type { EdgeFrontChoice, EdgeRuntimeOptions } from '../../src/runtime/edge-runtime.js';
import { createLogger } from '../../src/shared/logger.js';
import { openBucketStore, type BucketStore } from '../../src/store/index.js';
import { MemoryCatalog } from './memory-catalog.js';

/** A started edge with its catalog and store. */
export interface EdgeHarness {
  edge: RunningEdge;
  catalog: MemoryCatalog;
  store: BucketStore;
  close(): Promise<void>;
}

/** Starts an edge whose buckets are account-scoped (`<account>--<name>` in one store). */
export async function startEdgeHarness(opts: Partial<EdgeRuntimeOptions> = {}): Promise<EdgeHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-edge-test-'));
  const store = await openBucketStore({ dataDir });
  const catalog = new MemoryCatalog();
  const edge = await startEdge({
    listen: { host: '127.0.0.1', port: 0 }, catalog, logger: createLogger(process.env.EDGE_TEST_LOG ?? 'silent'),
    bucketFor: (accountId, name, options) => store.bucket(`${accountId}--${name}`, options),
    // as `stratus serve` runs it by default (auto: nginx when installed; EDGE_TEST_FRONT=workerd tests the workerd front)
    front: (process.env.EDGE_TEST_FRONT as EdgeFrontChoice | undefined) ?? 'auto',
    // with the fast path, as `stratus serve` (`--edge-fast-path on`, the default); EDGE_TEST_FAST_PATH=off: without
    fastPath: process.env.EDGE_TEST_FAST_PATH !== 'off',
    // EDGE_TEST_REPLICAS=2: every script runtime as two workerd processes (`--edge-replicas`)
    ...(process.env.EDGE_TEST_REPLICAS ? { replicas: Number(process.env.EDGE_TEST_REPLICAS) } : {}),
    ...opts,
  });
  return {
    edge, catalog, store,
    async close() {
      await edge.close();
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Retries `check` until it passes (conditions, never sleeps of a fixed length). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
