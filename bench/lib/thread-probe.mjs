/**
 * Worker threads of a Stratus process under bench/big-zone.mjs start here (bench/lib/loop-delay.mjs swaps their
 * script): the thread measures itself (thread-probe-core.mjs), writes its figures when the main thread asks (a
 * BroadcastChannel message on SIGUSR2), then runs the real script named after `--bench-probe-script`.
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { startProbe } from './thread-probe-core.mjs';

const at = process.argv.indexOf('--bench-probe-script');
const script = process.argv[at + 1];
process.argv.splice(at, 2);
const probe = startProbe();
const channel = new BroadcastChannel('stratus-bench-probe');
channel.unref();
channel.onmessage = ({ data }) => fs.writeFileSync(`${data.dir}/${data.pid}-${threadId}.json`, JSON.stringify(probe.take()));
await import(pathToFileURL(script).href);
