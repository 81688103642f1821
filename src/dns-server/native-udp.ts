/**
 * The DNS thread's native UDP path: the optional addon native/stratus_udp.c (built by node-gyp at
 * `npm install`, see native/build.mjs) reads queries in batches (`recvmmsg`), answers packet-cache hits itself
 * from answers the JavaScript handler computed and installed, sends them in batches (`sendmmsg`), and calls
 * into JavaScript once per batch for the rest: misses (answered by the handler, sent back with
 * {@link NativeUdp.send}) and hits the query log may want a line for. Counts of the hits it answers go into
 * {@link NativeUdp.counts} (drained into query-stats.ts with the thread's own).
 *
 * Freshness is the thread's (udp-worker.ts): the addon reads the main thread's shared counters on every batch
 * and compares them with what the thread applied ({@link NativeUdp.applied}); while anything is pending, or a
 * zone has work queued, the whole batch goes to JavaScript. A zone's cached answers are dropped when the
 * thread applies a change to it ({@link NativeUdp.invalidate}), every answer when the set of zones changes.
 *
 * When the addon is absent or fails to load, {@link loadNativeUdp} says why and the thread uses `dgram`.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LATENCY_BOUNDS, QTYPES, QueryStats, RCODES, TYPE_INDEX, rcodeIndex, type QueryCounts } from './query-stats.js';

/** The addon's functions (native/stratus_udp.c). */
interface Addon {
  open(host: string, port: number, options: object): object;
  address(handle: object): [string, number];
  send(handle: object, sockaddr: Buffer, message: Uint8Array): void;
  install(handle: object, query: Uint8Array, answer: Uint8Array, zoneSlot: number, expiresAtMs: number, rcodeIndex: number): boolean;
  invalidate(handle: object, zoneSlot: number): void;
  close(handle: object): void;
}

/** Where node-gyp puts the addon, under the package's folder. */
const ADDON = path.join('native', 'build', 'Release', 'stratus_udp.node');
/** Folders looked in above this module's at most (a build inside the package: node_modules/.cache/X/dist for tests and bench). */
const LEVELS = 6;

/** The addon's file: in the nearest folder above this module's that has one, up to the package's own folder. */
function addonFile(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < LEVELS; i++) {
    const file = path.join(dir, ADDON);
    if (fs.existsSync(file)) return file;
    if (fs.existsSync(path.join(dir, 'package.json'))) return undefined; // the package's root: no further
    dir = path.dirname(dir);
  }
  return undefined;
}

let loaded: { addon?: Addon; why?: string } | undefined;

/** The addon, or why it cannot be used here. */
export function loadNativeUdp(): { addon?: Addon; why?: string } {
  if (loaded) return loaded;
  if (process.platform !== 'linux') return (loaded = { why: `no native UDP path on ${process.platform}` });
  const file = addonFile();
  if (!file) return (loaded = { why: 'native UDP addon not built (npm run build:native)' });
  try {
    loaded = { addon: createRequire(import.meta.url)(file) as Addon };
  } catch (err) {
    loaded = { why: `native UDP addon failed to load: ${(err as Error).message}` };
  }
  return loaded;
}

/** A client's query handed to JavaScript: its bytes, address (as `dgram` writes it) and raw socket address. */
export interface NativeMiss {
  msg: Buffer;
  address: string;
  sockaddr: Buffer;
}

/** What a native socket calls back with, once per batch that has anything for JavaScript. */
export interface NativeHooks {
  /** Queries not answered natively (misses, or a batch read while the thread was not current). */
  onMisses(misses: NativeMiss[]): void;
  /** Hits answered natively that the query log may log (query, client address, answer, seconds). */
  onLogged(query: Buffer, address: string, answer: Buffer, seconds: number): void;
  /** The query log's shared window state (query-log.ts), when it is on. */
  log?: { state: Float64Array; perSecond: number } | undefined;
}

/** A bound native UDP socket. */
export class NativeUdp {
  /** Counts of the hits answered natively since the last {@link drainInto}. */
  readonly counts: QueryCounts = QueryStats.empty();
  private readonly control = new Int32Array(4);
  private readonly zoneSlots = new Map<string, number>();
  private readonly handle: object;

  constructor(private readonly addon: Addon, host: string, port: number, shared: Int32Array, hooks: NativeHooks) {
    const c = this.counts;
    if (hooks.log) { this.control[2] = 1; this.control[3] = hooks.log.perSecond; }
    this.handle = addon.open(host, port, {
      state: shared, control: this.control, queries: c.queries, truncated: c.truncated, latency: c.latency, latencySum: c.latencySum,
      bounds: new Float64Array(LATENCY_BOUNDS), typeIndex: TYPE_INDEX, logState: hooks.log?.state ?? new Float64Array(3),
      qtypeCount: QTYPES.length, rcodeCount: RCODES.length,
      onBatch: (misses: Array<Buffer | string>, logged: Array<Buffer | string>, seconds: number) => {
        if (misses.length) {
          const list: NativeMiss[] = [];
          for (let i = 0; i < misses.length; i += 3) list.push({ msg: misses[i] as Buffer, address: misses[i + 1] as string, sockaddr: misses[i + 2] as Buffer });
          hooks.onMisses(list);
        }
        for (let i = 0; i < logged.length; i += 3) hooks.onLogged(logged[i] as Buffer, logged[i + 1] as string, logged[i + 2] as Buffer, seconds);
      },
    });
  }

  /** The bound address and port. */
  address(): { address: string; port: number } {
    const [address, port] = this.addon.address(this.handle);
    return { address, port };
  }

  /** Records what the thread has applied: the last update batch and whether any zone has work queued. */
  applied(seq: number, blocked: boolean): void {
    this.control[0] = seq;
    this.control[1] = blocked ? 1 : 0;
  }

  /** Sends an answer to a client of a {@link NativeMiss}. */
  send(to: Buffer, message: Uint8Array): void {
    this.addon.send(this.handle, to, message);
  }

  /** Caches an answer the handler keeps in its own packet cache (UDP only), for this zone ('' none) until `expiresAt`. */
  install(query: Uint8Array, answer: Uint8Array, zoneId: string, expiresAt: number): void {
    this.addon.install(this.handle, query, answer, this.slot(zoneId), expiresAt, rcodeIndex(answer));
  }

  /** Drops a zone's cached answers, or every answer (zone undefined). */
  invalidate(zoneId: string | undefined): void {
    this.addon.invalidate(this.handle, zoneId === undefined ? -1 : this.slot(zoneId));
  }

  /** Adds the native counts to `into` and starts them again from zero. */
  drainInto(into: QueryStats): void {
    into.add(this.counts);
    for (const a of Object.values(this.counts) as Float64Array[]) a.fill(0);
  }

  /** Closes the socket (the port is free on return). */
  close(): void {
    this.addon.close(this.handle);
  }

  private slot(zoneId: string): number {
    let s = this.zoneSlots.get(zoneId);
    if (s === undefined) { s = this.zoneSlots.size; this.zoneSlots.set(zoneId, s); }
    return s;
  }
}
