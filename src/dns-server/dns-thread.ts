/**
 * One run of the DNS thread (udp-worker.ts) as the main thread sees it: the Worker, the port its zone updates
 * are posted on with the shared counter, and the replies it owes. udp-workers.ts starts one and, when it dies,
 * another (see there); a run is never restarted itself.
 */
import { Worker, MessageChannel } from 'node:worker_threads';
import type { Logger } from '../shared/logger.js';
import type { ZoneCache, ZoneUpdate } from './zone-cache.js';
import type { QueryOrigin, Responses } from './handler.js';
import type { TransferPart } from './query-types.js';
import { pooledChunkIds } from './framed-parts.js';
import { queryStats } from './query-stats.js';
import type { TransferPolicies } from '../secondary-dns/transfer-policy.js';
import type { ThreadCommand, ThreadInit, ThreadReport, UdpPath, UpdateBatch } from './dns-thread-protocol.js';
import { requestPull, transferredOut } from '../secondary-dns/change-signal.js';

/** Longest run of update posting per event-loop turn (ms). */
const FLUSH_MS = 4;
/** How often {@link DnsThread.synced} looks whether every update is posted (ms). */
const SYNC_POLL_MS = 10;

/**
 * The thread's young generation (MiB). V8 would grow it to 128 MiB while a big zone loads and keep its pages for
 * good (freed heap pages stay in V8's pool, resident); at 8 MiB a scavenge of the thread's short-lived garbage
 * (queries, answers, updates) takes about a millisecond instead of tens, and a zone of 300,000 records costs
 * 140 instead of 207 MiB (bench/zone-memory.mjs with BENCH_YOUNG_MB).
 */
const YOUNG_GENERATION_MB = 8;

type BindFailed = Extract<ThreadReport, { t: 'bind-failed' }>;

/** Parts of a streamed transfer asked of the thread before this thread needs them. */
const PARTS_AHEAD = 3;

/** A started DNS thread. */
export class DnsThread {
  private readonly worker: Worker;
  private readonly channel = new MessageChannel();
  private readonly state: Int32Array;
  private seq = 0;
  private unsent: ZoneUpdate[] = [];
  private scheduled = false;
  private told = '';
  private exitedWith: number | undefined;
  private readonly waiting: Array<(m: ThreadReport) => boolean> = [];
  private readonly asks = new Map<number, (out: Responses, more?: boolean, transferOf?: string) => void>();
  /** Streamed transfers waiting for their next parts (asked in order, answered in order). */
  private readonly parts = new Map<number, Array<(out: TransferPart | undefined, more: boolean, failed?: boolean) => void>>();
  private askId = 0;

  constructor(
    script: string,
    init: Omit<ThreadInit, 'updates' | 'shared'>,
    private readonly cache: ZoneCache,
    private readonly logger: Logger,
    /** Called once when the thread has ended (`err`: what it threw, if it threw). */
    onExit: (code: number, err: Error | undefined) => void,
  ) {
    const shared = new SharedArrayBuffer(8);
    this.state = new Int32Array(shared);
    const data: ThreadInit = { ...init, updates: this.channel.port2, shared };
    this.worker = new Worker(script, { workerData: data, transferList: [this.channel.port2], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    let thrown: Error | undefined;
    this.worker.on('message', (m: ThreadReport) => this.report(m));
    this.worker.on('error', (err) => { thrown = err; });
    this.worker.once('exit', (code) => {
      this.exitedWith = code;
      this.channel.port1.close();
      for (const w of this.waiting.splice(0)) w({ t: 'bind-failed', message: `DNS thread exited with ${code}` });
      for (const done of this.asks.values()) done([]);
      this.asks.clear();
      for (const waiting of this.parts.values()) for (const done of waiting) done(undefined, false);
      this.parts.clear();
      onExit(code, thrown);
    });
  }

  /** True once the thread has ended. */
  get exited(): boolean {
    return this.exitedWith !== undefined;
  }

  private report(m: ThreadReport): void {
    try {
      if (m.t === 'reply') {
        const done = this.asks.get(m.id);
        this.asks.delete(m.id);
        done?.(this.received(m.out, m.framed), m.more, m.transferOf);
      } else if (m.t === 'part') {
        const waiting = this.parts.get(m.id);
        const done = waiting?.shift();
        if (waiting?.length === 0) this.parts.delete(m.id);
        done?.(this.received(m.out, m.framed), m.more, m.failed);
      } else if (m.t === 'stats') queryStats.add(m.counts);
      else if (m.t === 'notified') requestPull(m.zoneId);
      else if (m.t === 'transferred') transferredOut(m.zoneId);
      else if (m.t === 'journal') this.cache.journalRecorded(m.zoneId, m.entry);
      else {
        const i = this.waiting.findIndex((w) => w(m));
        if (i >= 0) this.waiting.splice(i, 1);
      }
    } catch (err) {
      this.logger.error({ err }, 'DNS thread message failed');
    }
  }

  /**
   * Buffers over a report's messages, or its framed runs of them (no copy); those lying in the thread's shared
   * chunks (framed-parts.ts) carry the `release` that gives the chunks back to the thread.
   */
  private received(out: Uint8Array[], framed: boolean | undefined): TransferPart {
    const part: TransferPart = out.map((r) => Buffer.from(r.buffer, r.byteOffset, r.byteLength));
    if (framed) part.framed = true;
    const chunks = pooledChunkIds(part);
    if (chunks.length > 0) part.release = () => this.command({ t: 'release', chunks });
    return part;
  }

  /** Resolves with the first report `pick` accepts (or a bind failure when the thread exits). */
  next<T extends ThreadReport>(pick: (m: ThreadReport) => m is T): Promise<T | BindFailed> {
    return new Promise((resolve) => {
      if (this.exited) { resolve({ t: 'bind-failed', message: 'DNS thread exited' }); return; }
      this.waiting.push((m) => {
        if (pick(m) || m.t === 'bind-failed') { resolve(m as T | BindFailed); return true; }
        return false;
      });
    });
  }

  /** Waits for the thread's `ready`; false when it ended first. */
  async started(): Promise<boolean> {
    return (await this.next((m): m is Extract<ThreadReport, { t: 'ready' }> => m.t === 'ready')).t === 'ready';
  }

  /** Queues a zone update for the thread. */
  push(u: ZoneUpdate): void {
    this.unsent.push(u);
    if (!this.scheduled) this.flush();
    else this.setBusy();
  }

  private post(batch: Omit<UpdateBatch, 'seq'>): void {
    if (this.exited) return;
    this.channel.port1.postMessage({ seq: ++this.seq, ...batch } satisfies UpdateBatch);
    Atomics.store(this.state, 0, this.seq);
  }

  /** Flags unposted updates (every query waits), and tells the thread which zones wait when that changed. */
  setBusy(): void {
    Atomics.store(this.state, 1, this.unsent.length > 0 ? 1 : 0);
    const blocking = this.cache.blocking();
    const key = `${blocking.unborn} ${blocking.zoneIds.join(' ')}`;
    if (key === this.told) return;
    this.told = key;
    this.post({ updates: [], blocking });
  }

  /** Posts queued updates for at most {@link FLUSH_MS}, the rest on the next turns. */
  flush(): void {
    this.scheduled = false;
    const end = performance.now() + FLUSH_MS;
    let sent = 0;
    while (sent < this.unsent.length && (sent === 0 || performance.now() < end)) this.post({ updates: [this.unsent[sent++]!] });
    this.unsent = sent === this.unsent.length ? [] : this.unsent.slice(sent);
    if (this.unsent.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    this.setBusy();
  }

  /**
   * Resolves once the thread has applied every update queued so far and no zone has work queued, with the
   * number of names it holds (undefined: it ended first).
   */
  async synced(): Promise<number | undefined> {
    while (this.unsent.length > 0 && !this.exited) await new Promise((resolve) => setTimeout(resolve, SYNC_POLL_MS));
    const done = this.next((m): m is Extract<ThreadReport, { t: 'synced' }> => m.t === 'synced');
    this.command({ t: 'sync' });
    const r = await done;
    return r.t === 'synced' ? r.names : undefined;
  }

  /** Binds the thread's UDP socket; says which UDP path serves it. */
  async bind(host: string, port: number): Promise<{ host: string; port: number } & UdpPath> {
    const bound = this.next((m): m is Extract<ThreadReport, { t: 'bound' }> => m.t === 'bound');
    this.command({ t: 'bind', host, port });
    const r = await bound;
    if (r.t === 'bound') return { host: r.host, port: r.port, udp: r.udp, ...(r.why ? { why: r.why } : {}) };
    throw Object.assign(new Error(r.message), { code: r.code });
  }

  /** Closes the thread's UDP socket. */
  async unbind(): Promise<void> {
    if (this.exited) return;
    const done = this.next((m): m is Extract<ThreadReport, { t: 'unbound' }> => m.t === 'unbound');
    this.command({ t: 'unbind' });
    await done;
  }

  /** Answers a query in the thread (no answer when the thread ends first). */
  ask(msg: Buffer, origin: QueryOrigin): Promise<Responses> {
    if (this.exited) return Promise.resolve([]);
    const id = ++this.askId;
    return new Promise<Responses>((resolve) => {
      this.asks.set(id, (out, more, transferOf) => {
        const answer: Responses = more ? Object.assign(out, { more: this.nextParts(id) }) : out;
        if (transferOf !== undefined) answer.transferOf = transferOf;
        resolve(answer);
      });
      this.command({ t: 'ask', id, msg, address: origin.address });
    });
  }

  /**
   * The `more` of a streamed transfer answering ask `id`: asks the thread for each next part, {@link PARTS_AHEAD}
   * parts ahead, so that the thread makes the next parts while this thread writes one (without it, each part
   * waited for a round trip to the thread, and under load for the thread to be scheduled).
   */
  private nextParts(id: number): NonNullable<Responses['more']> {
    let finished = false;
    const asked: Array<Promise<TransferPart | undefined>> = [];
    // A transfer cut short (the thread ended, or failed to make a part) rejects: it never reached its end.
    const ask = (): Promise<TransferPart | undefined> => new Promise((resolve, reject) => {
      let waiting = this.parts.get(id);
      if (!waiting) { waiting = []; this.parts.set(id, waiting); }
      waiting.push((out, more, failed) => {
        if (!more) finished = true;
        if (out === undefined || failed) reject(new Error('zone transfer cut short in the DNS thread'));
        else resolve(finished && out.length === 0 ? undefined : out);
      });
      this.command({ t: 'more', id });
    });
    return () => {
      if (this.exited) return Promise.reject(new Error('zone transfer cut short: the DNS thread ended'));
      if (finished && asked.length === 0) return undefined;
      while (!finished && asked.length < PARTS_AHEAD) {
        const part = ask();
        part.catch(() => {}); // parts asked ahead may never be awaited (the connection closed first)
        asked.push(part);
      }
      return asked.shift();
    };
  }

  /** Gives the thread the transfer policies of zones with outgoing settings. */
  setPolicies(policies: TransferPolicies): void {
    this.command({ t: 'policies', policies });
  }

  private command(c: ThreadCommand): void {
    if (!this.exited) this.worker.postMessage(c);
  }

  /** Stops the thread. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}
