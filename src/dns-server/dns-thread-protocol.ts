/**
 * The messages between the DNS server and its thread (dns-thread.ts): what the thread is started with, the
 * commands it takes and the reports it sends. Types only.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ZoneUpdate } from './zone-update.js';
import type { QueryCounts } from './query-stats.js';
import type { LogFormat } from '../shared/log-format.js';
import type { TransferPolicies } from '../secondary-dns/transfer-policy.js';
import type { JournalEntry } from '../dns/zone-journal.js';

/** What the DNS thread is started with. */
export interface ThreadInit {
  updates: MessagePort;
  shared: SharedArrayBuffer;
  transferAllow: readonly string[];
  /** Versions of each zone kept for IXFR. */
  ixfrHistory: number;
  logLevel: string;
  logRate: number;
  logFormat: LogFormat;
  /** The secrets key that opens zone signing keys (signing.ts); absent: zones are served unsigned. */
  secretsKey?: Uint8Array | undefined;
  /** Serve UDP through the native addon when it loads (native-udp.ts); false: always `dgram`. */
  nativeUdp: boolean;
}

/** Which UDP path the thread's socket uses, and why not the native one. */
export interface UdpPath {
  udp: 'native' | 'js';
  why?: string;
}

/** Numbered zone updates posted to the thread, with the zones whose queries wait when that changed. */
export interface UpdateBatch {
  seq: number;
  updates: ZoneUpdate[];
  blocking?: { zoneIds: string[]; unborn: boolean };
}

/** Commands to the thread. */
export type ThreadCommand =
  | { t: 'bind'; host: string; port: number }
  | { t: 'unbind' }
  | { t: 'ask'; id: number; msg: Uint8Array; address: string }
  /** The next part of a streamed zone transfer answering ask `id`. */
  | { t: 'more'; id: number }
  /** Shared chunks of transfer parts the connection has taken (framed-parts.ts: by number), to be written again. */
  | { t: 'release'; chunks: number[] }
  /** Answer `synced` once every update posted so far is applied and no zone has work queued. */
  | { t: 'sync' }
  /** The transfer policies of zones with outgoing settings (secondary-dns/transfer-policy.ts). */
  | { t: 'policies'; policies: TransferPolicies };

/** Reports from the thread. */
export type ThreadReport =
  | { t: 'ready' }
  | ({ t: 'bound'; host: string; port: number } & UdpPath)
  | { t: 'bind-failed'; message: string; code?: string }
  | { t: 'unbound' }
  /**
   * `more`: a streamed zone transfer, whose next parts come as `part` reports when asked for; `transferOf`: see
   * Responses (query-types.ts).
   */
  | { t: 'reply'; id: number; out: Uint8Array[]; framed?: true; more?: boolean; transferOf?: string }
  /** `failed`: the transfer is cut short (its stream was dropped, or making the part threw). `framed`: see TransferPart. */
  | { t: 'part'; id: number; out: Uint8Array[]; framed?: true; more: boolean; failed?: boolean }
  /** `names`: the names of every zone the thread holds. */
  | { t: 'synced'; names: number }
  | { t: 'stats'; counts: QueryCounts }
  /** A NOTIFY taken from a secondary zone's primary (the main thread's refresh loop pulls the zone). */
  | { t: 'notified'; zoneId: string }
  /** An IXFR of a zone with outgoing settings answered over UDP (the main thread records `last_transferred_time`). */
  | { t: 'transferred'; zoneId: string }
  /** An IXFR journal entry a tree of the thread recorded (the main thread keeps it, journal-store.ts). */
  | { t: 'journal'; zoneId: string; entry: JournalEntry };
