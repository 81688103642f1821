#!/usr/bin/env -S node --max-semi-space-size=1
/**
 * The `stratus` executable. It checks the Node.js version before loading anything else (ES module imports are
 * evaluated before a module's own code, so the command itself, src/cli/stratus.ts, is imported dynamically
 * once the version is known to be supported): on an unsupported version it prints one line and exits 2.
 *
 * Node runs it with a young generation of at most 1 MiB per semi-space (the first line; `npm start` passes the
 * same flag): the main thread answers the edge's bucket operations, and Node's default young generation (up to
 * 16 MiB per semi-space) stopped it for 3-7 ms at each collection, most of a bucket read's p99 that the edge's
 * workerd did not cause (docs/edge-performance.md, "Where the read's tail is"). Measured costs and gains: docs/configuration.md.
 */
import { unsupportedNode } from './cli/node-version.js';

const refusal = unsupportedNode(process.versions.node);
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exit(2);
}
await import('./cli/stratus.js');
