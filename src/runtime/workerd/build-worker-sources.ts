/**
 * Run by `npm run build` after tsc (`node dist/runtime/workerd/build-worker-sources.js`): bundles Stratus's
 * workerd modules from `src/runtime/in-workerd/` into `dist/workers/`, where the built package reads them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { builtWorkersDir, bundleWorker, WORKER_BUNDLES, type WorkerBundle } from './worker-sources.js';

const out = builtWorkersDir();
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
for (const name of Object.keys(WORKER_BUNDLES) as WorkerBundle[]) {
  fs.writeFileSync(path.join(out, `${name}.js`), bundleWorker(name));
}
