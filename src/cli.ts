#!/usr/bin/env node
/**
 * The `stratus` executable. It checks the Node.js version before loading anything else (ES module imports are
 * evaluated before a module's own code, so the command itself, src/cli/stratus.ts, is imported dynamically
 * once the version is known to be supported): on an unsupported version it prints one line and exits 2.
 */
import { unsupportedNode } from './cli/node-version.js';

const refusal = unsupportedNode(process.versions.node);
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exit(2);
}
await import('./cli/stratus.js');
