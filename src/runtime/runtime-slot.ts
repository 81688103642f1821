/**
 * One script runtime of the edge: a line of workerd generations accepting, one after another, on a listening
 * socket Node holds for the slot's whole life, each process watched. Slot 0 is the shared runtime (hostnames
 * without a script, and every script when the edge runs no account runtimes); slots 1..N run the scripts of the
 * accounts assigned to them (`account-slots.ts`), so a script that loops or grows stalls only its own slot.
 *
 * A generation is one workerd process (`replicas` alike in the slots that run scripts, each with version sockets
 * of its own: nginx sends a fast-path request to the one with the fewest in flight) whose config holds the
 * supervisor worker and a static worker per script version it serves. A request for a version the live
 * generation lacks makes Node build the next generation (the live versions plus the new one) beside it on the
 * same held socket; the old one hands the request over, then drains (SIGTERM: it stops accepting and finishes
 * its requests) and exits.
 *
 * Invariants:
 * - Builds and replacements run one at a time, in order; a build takes every version wanted so far.
 * - A version whose worker does not load is left out of the generation (a 1101 page); the others keep serving.
 * - A generation process that exits unexpectedly, stops answering its watchdog ping within the CPU limit (a
 *   synchronous loop) or grows over the memory limit is killed and its generation replaced at once with the same
 *   versions; the requests in flight on that process get the 1102 page from the front, which holds the client
 *   connections (without the front, their connections close); its replicas serve until the replacement is live,
 *   then drain. A draining process over the memory or the CPU limit is killed too (not replaced).
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeSubfolder } from './temp-dirs.js';
import type { EdgeCatalog, ScriptBundle } from '../edge/types.js';
import type { Logger } from '../shared/logger.js';
import type { SupervisorConfig } from './in-workerd/supervisor/config.js';
import { workerSource } from './workerd/worker-sources.js';
import { versionBindingName, writeGenerationConfig, type GenerationServices } from './workerd/config-text.js';
import { WorkerdProcess, WorkerdStartError, WORKERD_COMPATIBILITY_DATE } from './workerd/process.js';
import { Watchdog } from './watchdog.js';
import { CpuBudgets } from './cpu-budgets.js';

/** The lowest CPU limit the watchdog holds a generation to (its ping's precision on a busy machine), ms. */
export const MIN_OWN_CPU_MS = 50;

/** Version id -> its own CPU limit, for the versions whose `limits.cpu_ms` is below the node's (`cpuMs`). */
function ownCpuLimits(versions: Iterable<ScriptBundle>, cpuMs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of versions) {
    const own = b.limits?.cpuMs === undefined ? undefined : Math.max(MIN_OWN_CPU_MS, b.limits.cpuMs);
    if (own !== undefined && own < cpuMs) out[b.versionId] = own;
  }
  return out;
}

/** What every slot of one edge runtime shares. */
export interface SlotSettings {
  catalog?: EdgeCatalog | undefined;
  services: GenerationServices;
  logger: Logger;
  /** The runtime's private folder (generation configs are written under it, then removed). */
  dir: string;
  secret: string;
  cpuMs: number;
  memoryMb: number;
  wallMs: number;
  maxRequestBytes: number;
  exposeErrors: boolean;
  maxVersions: number;
  /** Behind the nginx front, which writes the access records: answers carry the record's fields instead of reports. */
  recordHeader?: boolean;
  /** Give every version of a generation its own socket (the fast path, `front/fast-routes.ts`). */
  fastPath?: boolean;
  /** Called when a slot's live generation changed (its version sockets with it). */
  onLive?: () => void;
  /** Awaited before a replaced generation is told to stop (nginx must stop sending to its sockets first). */
  beforeRetire?: () => Promise<void>;
  /** workerd processes per generation of the slots that run scripts (`--edge-replicas`; default 1). */
  replicas?: number;
  /** Every script runs in slot 0 (no account runtimes): its generations have the replicas. */
  scriptsInShared?: boolean;
}

/** One workerd process of a generation. */
interface Replica {
  process: WorkerdProcess;
  /** Version id -> the Unix socket its worker accepts on directly in this process (fast path); empty without it. */
  fast: Map<string, string>;
}

interface Generation {
  n: number;
  /** The generation's processes, alike (one unless `replicas`); the first answers the hand-offs and flushes. */
  replicas: Replica[];
  versions: Map<string, ScriptBundle>;
}

/** Every process of a generation. */
function processesOf(g: Generation): WorkerdProcess[] {
  return g.replicas.map((r) => r.process);
}

/** One slot: its held socket's descriptor, its generations, its watchdog. */
export class RuntimeSlot {
  private current: Generation | undefined;
  /** Builds and replacements run one after another on this chain. */
  private tail: Promise<void> = Promise.resolve();
  private readonly wanted = new Set<string>();
  private readonly failed = new Map<string, { at: number; reason: string }>();
  /** Replaced generations still finishing their requests, with their numbers. */
  private readonly draining = new Map<WorkerdProcess, number>();
  private closed = false;
  /** One watchdog per replica (the first also holds the draining generations to the limits). */
  private watchdogs: Watchdog[] = [];
  /** workerd processes per generation of this slot. */
  private readonly replicaCount: number;
  private readonly log: Logger;
  /** Requests in flight of versions with their own, lower CPU limit (the watchdog holds the generation to it). */
  readonly cpuBudgets = new CpuBudgets();
  /** Generations replaced because one died, hung or grew too large. */
  restarts = 0;
  /** The fast path's targets of the last live generation (kept while it is being replaced: nginx falls back). */
  private fastLive = new Map<string, { sockets: string[]; accountId: string }>();

  /** `generations` numbers generations across every slot of the runtime (their config folders and log labels). */
  constructor(readonly index: number, private readonly socketFd: number, private readonly s: SlotSettings, private readonly generations: { next: number }) {
    this.log = s.logger.child({ component: 'edge', slot: index });
    this.replicaCount = index > 0 || s.scriptsInShared ? Math.max(1, s.replicas ?? 1) : 1;
  }

  /** Starts the first generation (with `first` when it loads, else empty) and the watchdog. */
  async start(first?: ScriptBundle): Promise<void> {
    this.setLive((first ? await this.tryLaunch(new Map(), [first]) : undefined) ?? await this.launch(new Map()));
    this.watchdogs = Array.from({ length: this.replicaCount }, (_, r) => new Watchdog({
      cpuMs: this.s.cpuMs, memoryMb: this.s.memoryMb, secret: this.s.secret, logger: this.log,
      target: () => this.current?.replicas[r]?.process, onFailure: (why) => this.replace(why, this.current?.replicas[r]?.process),
      draining: () => (r === 0 ? this.draining.keys() : []), budget: (p) => this.budgetOf(p), lowerWhenBusy: this.index > 0,
      onDrainingFailure: (p, why) => {
        this.restarts++;
        this.log.error({ pid: p.pid, generation: this.draining.get(p), reason: why }, 'draining generation failed; killing it');
        p.kill();
      },
    }));
  }

  /** The smallest own CPU limit of the requests in flight on generation process `p` (the live one or a draining one). */
  private budgetOf(p: WorkerdProcess): number | undefined {
    const n = this.current && processesOf(this.current).includes(p) ? this.current.n : this.draining.get(p);
    return n === undefined ? undefined : this.cpuBudgets.smallest(n);
  }

  /** The live generation, if one serves (undefined while it is being replaced): `pid` is its first process's, `pids` all. */
  get live(): { n: number; pid: number | undefined; pids: (number | undefined)[]; versions: number; alive: boolean } | undefined {
    const g = this.current;
    if (!g) return undefined;
    const processes = processesOf(g);
    return { n: g.n, pid: processes[0]!.pid, pids: processes.map((p) => p.pid), versions: g.versions.size, alive: processes.every((p) => p.alive) };
  }

  /**
   * Version id -> its own socket in the live generation, for the versions the fast path may serve: those without
   * their own CPU limit below the node's (the supervisor tells the watchdog about those).
   */
  fastTargets(): ReadonlyMap<string, { sockets: string[]; accountId: string }> {
    return this.fastLive;
  }

  /** Whether the live generation holds `versionId` (fast-path eligible or not). */
  serves(versionId: string): boolean {
    return this.current?.versions.has(versionId) ?? false;
  }

  private setLive(g: Generation): void {
    this.current = g;
    const own = ownCpuLimits(g.versions.values(), this.s.cpuMs);
    this.fastLive = new Map([...g.replicas[0]!.fast.keys()].filter((v) => own[v] === undefined)
      .map((v) => [v, { sockets: g.replicas.map((r) => r.fast.get(v)!), accountId: g.versions.get(v)!.accountId }]));
    this.s.onLive?.();
  }

  /** Makes the live generation serve `versionId`; resolves its internal port, or null if the version does not exist. */
  async ensure(versionId: string): Promise<number | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.closed) return null;
      const live = this.current;
      if (live?.versions.has(versionId)) return live.replicas[0]!.process.internalPort;
      const failed = this.failed.get(versionId);
      if (failed !== undefined && Date.now() - failed.at < 10_000) throw new Error(failed.reason);
      const bundle = await this.s.catalog?.bundle(versionId);
      if (!bundle) return null;
      this.wanted.add(versionId);
      await this.build();
    }
    throw new Error(`version ${versionId} is not served after three generations`);
  }

  /** Builds the next generation with the wanted versions, after any build or replacement already queued. */
  private build(): Promise<void> {
    return this.enqueue(() => this.rebuild());
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async rebuild(): Promise<void> {
    const base = new Map(this.current?.versions ?? []);
    const adding: ScriptBundle[] = [];
    for (const v of [...this.wanted]) {
      this.wanted.delete(v);
      if (base.has(v)) continue;
      const bundle = await this.s.catalog?.bundle(v);
      if (bundle) adding.push(bundle);
    }
    if (adding.length === 0) return;
    // Versions are kept in the order they were added; past the cap the oldest leave (a later request for one
    // brings it back through the same hand-off).
    const cap = Math.max(1, this.s.maxVersions - adding.length);
    for (const v of [...base.keys()].slice(0, Math.max(0, base.size - cap))) base.delete(v);
    const next = await this.tryLaunch(base, adding);
    if (next) this.swap(next);
  }

  /** Launches with all of `adding`; when that fails, with each one alone, keeping those that load. */
  private async tryLaunch(base: Map<string, ScriptBundle>, adding: ScriptBundle[]): Promise<Generation | undefined> {
    const all = new Map(base);
    for (const b of adding) all.set(b.versionId, b);
    try {
      return await this.launch(all);
    } catch (err) {
      if (!(err instanceof WorkerdStartError)) throw err;
      if (adding.length === 1) {
        this.failed.set(adding[0]!.versionId, { at: Date.now(), reason: err.message });
        this.log.warn({ script: adding[0]!.scriptName, version: adding[0]!.versionId, reason: err.message }, 'script version failed to load');
        return undefined;
      }
    }
    let best: Generation | undefined;
    let kept = new Map(base);
    for (const b of adding) {
      const g = await this.tryLaunch(kept, [b]);
      if (g) {
        if (best) this.retireProcesses(processesOf(best), best.n, 0);
        best = g;
        kept = new Map(g.versions);
      }
    }
    return best;
  }

  private async launch(versions: Map<string, ScriptBundle>): Promise<Generation> {
    const n = this.generations.next++;
    const dir = path.join(this.s.dir, `g${n}`);
    const config: SupervisorConfig = {
      versions: Object.fromEntries([...versions.keys()].map((v) => [v, versionBindingName(v)])),
      secret: this.s.secret, cacheMs: 30_000, wallMs: this.s.wallMs,
      maxRequestBytes: this.s.maxRequestBytes, colo: 'STR', exposeErrors: this.s.exposeErrors,
      cpuMs: ownCpuLimits(versions.values(), this.s.cpuMs), slot: this.index, generation: n,
      ...(this.s.recordHeader ? { recordHeader: true } : {}),
    };
    const bundles = [...versions.values()].map((b) => this.clampDate(b));
    const started = await Promise.allSettled(Array.from({ length: this.replicaCount }, (_, r) => this.startReplica(n, r, config, bundles, [...versions.keys()])));
    const replicas = started.flatMap((x) => (x.status === 'fulfilled' ? [x.value] : []));
    const failed = started.find((x): x is PromiseRejectedResult => x.status === 'rejected');
    if (failed) {
      for (const r of replicas) {
        r.process.kill();
        for (const socket of r.fast.values()) fs.rmSync(socket, { force: true });
      }
      throw failed.reason;
    }
    const g: Generation = { n, replicas, versions };
    for (const r of replicas) {
      void r.process.exited.then((exit) => {
        for (const socket of r.fast.values()) fs.rmSync(socket, { force: true });
        this.cpuBudgets.forget(n);
        this.onExit(g, r.process, exit);
      });
    }
    return g;
  }

  /** Starts process `r` of generation `n`, with its own version sockets (the first process's named as without replicas). */
  private async startReplica(n: number, r: number, config: SupervisorConfig, bundles: ScriptBundle[], versionIds: string[]): Promise<Replica> {
    const name = r === 0 ? String(n) : `${n}r${r}`;
    const dir = path.join(this.s.dir, `g${name}`);
    const fast = new Map<string, string>();
    if (this.s.fastPath) {
      const folder = path.join(this.s.dir, 'fast');
      makeSubfolder(folder);
      versionIds.forEach((v, k) => fast.set(v, path.join(folder, `${this.index}-${name}-${k}.sock`)));
    }
    const file = writeGenerationConfig({ dir, supervisorSource: workerSource('supervisor'), supervisorConfig: config, versions: bundles, services: this.s.services, fastSockets: Object.fromEntries(fast) });
    try {
      const process = await WorkerdProcess.start({ configFile: file, edgeFd: this.socketFd, logger: this.s.logger, label: name });
      return { process, fast };
    } catch (err) {
      for (const socket of fast.values()) fs.rmSync(socket, { force: true });
      throw err;
    } finally {
      // workerd has read its config; the folder held secrets in clear.
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /** workerd refuses dates newer than it knows; production accepts any date up to today: run at workerd's newest. */
  private clampDate(b: ScriptBundle): ScriptBundle {
    if (b.compatibilityDate <= WORKERD_COMPATIBILITY_DATE) return b;
    this.log.warn({ script: b.scriptName, date: b.compatibilityDate, runs: WORKERD_COMPATIBILITY_DATE }, 'compatibility date newer than the runtime; running at its newest date');
    return { ...b, compatibilityDate: WORKERD_COMPATIBILITY_DATE };
  }

  private swap(next: Generation): void {
    const old = this.current;
    this.setLive(next);
    this.log.info({ generation: next.n, versions: next.versions.size }, 'generation serving');
    if (old) this.retireProcesses(processesOf(old), old.n);
  }

  /**
   * Lets replaced processes of generation `n` finish their requests (up to a minute), then they exit. The watchdog
   * holds them to the memory and CPU limits meanwhile: a script looping in one is stopped at the limit.
   */
  private retireProcesses(processes: WorkerdProcess[], n: number, graceMs = 60_000): void {
    const before = (this.s.beforeRetire?.() ?? Promise.resolve()).catch(() => undefined);
    for (const p of processes) {
      this.draining.set(p, n);
      void before
        .then(() => this.tellDraining(p))
        .then(() => p.stop(graceMs))
        .finally(() => this.draining.delete(p));
    }
  }

  /** Has a generation send the access records it holds, and every later one at once (its requests in flight finish after). */
  private async tellDraining(p: WorkerdProcess): Promise<void> {
    await fetch(`http://127.0.0.1:${p.internalPort}/`, { headers: { 'x-stratus-internal': this.s.secret, 'x-stratus-op': 'drain' }, signal: AbortSignal.timeout(2000) })
      .then((res) => res.arrayBuffer())
      .catch(() => undefined); // a generation that cannot answer is stopped all the same
  }

  private onExit(g: Generation, p: WorkerdProcess, exit: { code: number | null; signal: NodeJS.Signals | null }): void {
    if (this.closed || g !== this.current) return;
    this.replace(`workerd exited (${exit.signal ?? `code ${exit.code}`})`, p);
  }

  /**
   * Kills the live generation's `failed` process (every one when not named) and starts a replacement with the
   * same versions. Its other processes (replicas) keep serving, held to the limits as draining ones, until the
   * replacement is live, then drain as after a deploy: only the failed process's requests are lost.
   */
  private replace(why: string, failed?: WorkerdProcess): void {
    const g = this.current;
    if (!g || this.closed) return;
    this.restarts++;
    this.log.error({ generation: g.n, pid: failed?.pid, reason: why }, 'generation failed; replacing it');
    const survivors = failed ? processesOf(g).filter((p) => p !== failed && p.alive) : [];
    for (const p of processesOf(g)) if (!survivors.includes(p)) p.kill();
    for (const p of survivors) this.draining.set(p, g.n);
    this.cpuBudgets.forget(g.n);
    this.current = undefined;
    const relaunch = async (): Promise<void> => {
      for (let delay = 100; !this.closed; delay = Math.min(delay * 2, 5_000)) {
        try {
          const next = await this.launch(g.versions);
          if (this.closed) { for (const p of processesOf(next)) p.kill(); return; }
          this.setLive(next);
          if (survivors.length > 0) this.retireProcesses(survivors, g.n);
          return;
        } catch (err) {
          this.log.error({ err }, 'replacement generation failed to start');
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    };
    void this.enqueue(relaunch);
  }

  /** Tells the live generation's processes to drop their cached routes (after a deploy or a route change). */
  async flush(): Promise<void> {
    const g = this.current;
    if (!g) return;
    await Promise.all(processesOf(g).map((p) => fetch(`http://127.0.0.1:${p.internalPort}/`, { headers: { 'x-stratus-internal': this.s.secret, 'x-stratus-op': 'flush' } })
      .then((r) => r.arrayBuffer(), () => undefined)));
  }

  /** Stops the watchdog and waits for the build or replacement under way; the live generation keeps serving. */
  async quiesce(): Promise<void> {
    this.closed = true;
    for (const w of this.watchdogs) w.stop();
    await this.tail;
  }

  /** Stops the generations, letting their requests finish for up to `graceMs` (after {@link quiesce}). */
  async stop(graceMs: number): Promise<void> {
    await this.quiesce();
    const processes = [...this.draining.keys()];
    if (this.current) {
      const live = processesOf(this.current);
      processes.push(...live);
      await Promise.all(live.map((p) => this.tellDraining(p))); // the access records they hold reach the log
    }
    await Promise.all(processes.map((p) => p.stop(graceMs)));
  }
}
