/**
 * The edge runtime: one live workerd generation per node serving the edge socket, supervised from Node.
 *
 * Clients connect to the front process, which forwards to whichever generation accepts on a Unix socket Node
 * holds. A generation is one workerd process whose config holds the supervisor worker and a static worker per
 * script version it serves (workerd's own bucket bindings, bound to the store service). A request for a
 * version the live generation lacks makes Node build the next generation (the live versions plus the new
 * one) beside it on the same held socket; the old generation hands the request over to the new one, then
 * drains (SIGTERM: it stops accepting and finishes its requests) and exits. Deploys never close the port.
 *
 * Invariants:
 * - Builds and replacements run one at a time, in order; a build takes every version wanted so far, so
 *   requests waiting for versions share it.
 * - A version whose worker does not load is left out of the generation and answered as a 1101 page; the
 *   others keep serving.
 * - A generation that exits unexpectedly, stops answering its watchdog ping within the CPU limit (a script
 *   in a synchronous loop) or grows over the memory limit is killed and replaced at once with the same
 *   versions; the requests in flight on it get the 1102 page from the front process (`front/`), which holds
 *   the client connections (without the front, their connections close); every later request is served. A
 *   draining generation over the memory limit is killed too.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EdgeCatalog, ScriptBundle } from '../edge/types.js';
import type { Logger } from '../shared/logger.js';
import { startControlService, type ControlService, type EdgeAccessRecord } from './control-service.js';
import { startStoreService, type BucketResolver, type StoreService } from './store-service/server.js';
import { supervisorSource, type SupervisorConfig } from './supervisor/source.js';
import { versionBindingName, writeGenerationConfig, type GenerationServices } from './workerd/config-text.js';
import { WorkerdProcess, WorkerdStartError, WORKERD_COMPATIBILITY_DATE } from './workerd/process.js';
import { holdListeningSocket, type HeldSocket } from './workerd/socket-holder.js';
import { makeTempDir, removeTempDir } from './temp-dirs.js';
import { Watchdog } from './watchdog.js';
import { FrontDoor } from './front/front-door.js';
import { edgeAccessRecorder } from './edge-access.js';
import { CpuBudgets } from './cpu-budgets.js';
import { AddressPolicy } from '../edge/address-policy.js';

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

/** Options of {@link EdgeRuntime}. */
export interface EdgeRuntimeOptions {
  listen: { host: string; port: number };
  catalog?: EdgeCatalog | undefined;
  bucketFor: BucketResolver;
  logger: Logger;
  /** Port of origins (`--origin-port`, default 80). */
  originPort?: number;
  /** Port of origins reached over HTTPS (zones with `ssl` full or strict; `--origin-tls-port`, default 443). */
  originTlsPort?: number;
  /** CIDRs scripts may fetch besides public addresses (`--script-outbound`). */
  scriptOutbound?: string[];
  /** CIDRs proxied origins may be in besides public addresses (`--origin-allow`). */
  originAllow?: string[];
  /** This host's addresses (Stratus's own listeners): neither scripts nor origins reach them unless allowed. */
  hostAddresses?: string[];
  /** CPU limit: longest time the generation may stop answering (a script that does not yield), ms. Default 30000. */
  cpuMs?: number;
  /** Wall-time limit of a script's answer, ms (0: none). Default 0. */
  wallMs?: number;
  /** Memory limit of the workerd process, MiB. Default 1024. */
  memoryMb?: number;
  /** Largest request body, bytes. Default 100 MiB (production's smallest plan limit). */
  maxRequestBytes?: number;
  /** Error pages show the script's exception (`stratus dev`); never on a shared edge. */
  exposeErrors?: boolean;
  /** Most script versions one generation holds (the oldest added leave first). Default 500. */
  maxVersions?: number;
  /** Receives the finished requests instead of the access log and metrics (`stratus dev`'s request lines). */
  access?: (records: EdgeAccessRecord[]) => void;
  /** `fetch()` calls per request of a script (0: no limit). Default 50, production's free plan. */
  subrequests?: number;
  /** Bucket binding operations per request of a script (0: no limit). Default 1000, production's free plan. */
  bucketSubrequests?: number;
  /**
   * The front process (default true): it holds client connections, so requests in flight on a generation that
   * is killed get the 1102 page, and it counts chunked bodies against the body limit. Without it generations
   * accept on the edge socket themselves: faster, but those requests lose their connection and a chunked
   * body is not counted.
   */
  front?: boolean;
}

/** Production's request body limit on its smallest plans (100 MB). */
const DEFAULT_MAX_REQUEST_BYTES = 100 * 1024 * 1024;

interface Generation {
  n: number;
  process: WorkerdProcess;
  versions: Map<string, ScriptBundle>;
  dir: string;
}

/** The edge's data plane. */
export class EdgeRuntime {
  private socket!: HeldSocket;
  /** The Unix socket every generation accepts on; the front door forwards to it. */
  private generationSocket!: HeldSocket;
  private front: FrontDoor | undefined;
  private store!: StoreService;
  private control!: ControlService;
  private services!: GenerationServices;
  private readonly secret = crypto.randomBytes(24).toString('hex');
  private readonly dir = makeTempDir('stratus-edge-');
  private current: Generation | undefined;
  /** Builds and replacements run one after another on this chain. */
  private tail: Promise<void> = Promise.resolve();
  private readonly wanted = new Set<string>();
  private readonly failed = new Map<string, { at: number; reason: string }>();
  private nextGeneration = 1;
  /** Replaced generations still finishing their requests. */
  private readonly draining = new Set<WorkerdProcess>();
  private closed = false;
  private unsubscribe: (() => void) | undefined;
  private watchdog: Watchdog | undefined;
  private readonly log: Logger;
  /** Requests in flight of versions with their own, lower CPU limit (the watchdog holds the generation to it). */
  private readonly cpuBudgets = new CpuBudgets();
  /** Generations replaced because one died, hung or grew too large. */
  restarts = 0;

  constructor(private readonly opts: EdgeRuntimeOptions) {
    this.log = opts.logger.child({ component: 'edge' });
  }

  /** `http://host:port` of the edge listener. */
  get url(): string {
    const host = this.socket.host.includes(':') ? `[${this.socket.host}]` : this.socket.host;
    return `http://${host}:${this.socket.port}`;
  }

  get port(): number {
    return this.socket.port;
  }

  /** The front process's pid (undefined with `front: false`; tests use it to simulate a crash). */
  get frontPid(): number | undefined {
    return this.front?.pid;
  }

  /** The Unix socket the generations accept on, behind the front process (the benchmark measures it alone). */
  get generationSocketPath(): string {
    return path.join(this.dir, 'generation.sock');
  }

  /** The store service's address: `unix:<path>`, a socket in the runtime's private folder (tests check who can reach it). */
  get storeAddress(): string {
    return this.store.address;
  }

  /** The secret the HTTPS edge listener (`https-edge.ts`) vouches for the client's address and scheme with. */
  get frontSecret(): string {
    return this.secret;
  }

  /** The live generation's workerd pid (tests use it to simulate a crash). */
  get pid(): number | undefined {
    return this.current?.process.pid;
  }

  /** Binds the edge socket, starts the store and control services and the first generation. */
  async start(): Promise<void> {
    this.socket = await holdListeningSocket(this.opts.listen.host, this.opts.listen.port);
    if (this.opts.front !== false) this.generationSocket = await holdListeningSocket(`unix:${this.generationSocketPath}`, 0);
    this.store = await startStoreService({ secret: this.secret, bucketFor: this.opts.bucketFor, logger: this.opts.logger, socketPath: path.join(this.dir, 'store.sock') });
    this.control = await startControlService(this.secret, {
      catalog: this.opts.catalog, ensure: (v) => this.ensure(v), originPort: this.opts.originPort ?? 80, originTlsPort: this.opts.originTlsPort ?? 443,
      originPolicy: new AddressPolicy({ allow: this.opts.originAllow ?? [], deny: this.opts.hostAddresses ?? [] }), logger: this.opts.logger, bucketFor: this.opts.bucketFor,
      access: this.opts.access ?? edgeAccessRecorder(this.opts.logger), cpuBudgets: this.cpuBudgets,
    });
    this.services = {
      control: this.control.address, store: this.store.address, secret: this.secret,
      scriptNetwork: new AddressPolicy({ allow: this.opts.scriptOutbound ?? [], deny: this.opts.hostAddresses ?? [] }).workerdNetwork(),
      behindFront: this.opts.front !== false,
      subrequests: { fetch: this.opts.subrequests ?? 50, bucket: this.opts.bucketSubrequests ?? 1000 },
    };
    this.current = await this.launch(new Map());
    if (this.opts.front !== false) this.front = await FrontDoor.start({
      edgeFd: this.socket.fd, generationSocket: this.generationSocketPath, dir: this.dir, logger: this.opts.logger,
      control: { address: this.control.address, secret: this.secret },
      config: { secret: this.secret, maxRequestBytes: this.opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES, colo: 'STR' },
    });
    this.unsubscribe = this.opts.catalog?.onChange(() => void this.flush());
    this.watchdog = new Watchdog({
      cpuMs: this.opts.cpuMs ?? 30_000, memoryMb: this.opts.memoryMb ?? 1024, secret: this.secret, logger: this.log,
      target: () => this.current?.process, onFailure: (why) => this.replace(why),
      draining: () => this.draining, budget: () => this.cpuBudgets.smallest(),
      onDrainingFailure: (p, why) => { this.restarts++; this.log.error({ pid: p.pid, reason: why }, 'draining generation failed; killing it'); p.kill(); },
    });
  }

  /** Whether a live generation serves the edge socket (readiness; the watchdog replaces one that stops answering). */
  status(): { ok: boolean; detail: string } {
    if (this.closed) return { ok: false, detail: 'closed' };
    const g = this.current;
    if (!g || !g.process.alive) return { ok: false, detail: 'workerd is being replaced' };
    if (this.front && !this.front.alive) return { ok: false, detail: 'the front workerd is being restarted' };
    return { ok: true, detail: `workerd generation ${g.n} serving ${g.versions.size} script versions` };
  }

  /** Makes the live generation serve `versionId`; resolves its internal port, or null if the version does not exist. */
  async ensure(versionId: string): Promise<number | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.closed) return null;
      const live = this.current;
      if (live?.versions.has(versionId)) return live.process.internalPort;
      const failed = this.failed.get(versionId);
      if (failed !== undefined && Date.now() - failed.at < 10_000) throw new Error(failed.reason);
      const bundle = await this.opts.catalog?.bundle(versionId);
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
      const bundle = await this.opts.catalog?.bundle(v);
      if (bundle) adding.push(bundle);
    }
    if (adding.length === 0) return;
    // Versions are kept in the order they were added; past the cap the oldest leave (a later request for one
    // brings it back through the same hand-off).
    const cap = Math.max(1, (this.opts.maxVersions ?? 500) - adding.length);
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
        if (best) this.retire(best.process, 0);
        best = g;
        kept = new Map(g.versions);
      }
    }
    return best;
  }

  private async launch(versions: Map<string, ScriptBundle>): Promise<Generation> {
    const n = this.nextGeneration++;
    const dir = path.join(this.dir, `g${n}`);
    const config: SupervisorConfig = {
      versions: Object.fromEntries([...versions.keys()].map((v) => [v, versionBindingName(v)])),
      secret: this.secret, cacheMs: 30_000, wallMs: this.opts.wallMs ?? 0,
      maxRequestBytes: this.opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES, colo: 'STR', exposeErrors: this.opts.exposeErrors ?? false,
      cpuMs: ownCpuLimits(versions.values(), this.opts.cpuMs ?? 30_000),
    };
    const bundles = [...versions.values()].map((b) => this.clampDate(b));
    const file = writeGenerationConfig({ dir, supervisorSource: supervisorSource(), supervisorConfig: config, versions: bundles, services: this.services });
    try {
      const process = await WorkerdProcess.start({ configFile: file, edgeFd: this.opts.front !== false ? this.generationSocket.fd : this.socket.fd, logger: this.opts.logger, label: String(n) });
      const g: Generation = { n, process, versions, dir };
      void process.exited.then((exit) => this.onExit(g, exit));
      return g;
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
    this.current = next;
    this.log.info({ generation: next.n, versions: next.versions.size }, 'generation serving');
    if (old) this.retire(old.process);
  }

  /** Lets a replaced generation finish its requests (up to a minute), then it exits. */
  private retire(p: WorkerdProcess, graceMs = 60_000): void {
    this.draining.add(p);
    void this.tellDraining(p)
      .then(() => p.stop(graceMs))
      .finally(() => this.draining.delete(p));
  }

  /** Has a generation send the access records it holds, and every later one at once (its requests in flight finish after). */
  private async tellDraining(p: WorkerdProcess): Promise<void> {
    await fetch(`http://127.0.0.1:${p.internalPort}/`, { headers: { 'x-stratus-internal': this.secret, 'x-stratus-op': 'drain' }, signal: AbortSignal.timeout(2000) })
      .then((res) => res.arrayBuffer())
      .catch(() => undefined); // a generation that cannot answer is stopped all the same
  }

  private onExit(g: Generation, exit: { code: number | null; signal: NodeJS.Signals | null }): void {
    if (this.closed || g !== this.current) return;
    this.replace(`workerd exited (${exit.signal ?? `code ${exit.code}`})`);
  }

  /** Kills the live generation and starts its replacement with the same versions. */
  private replace(why: string): void {
    const g = this.current;
    if (!g || this.closed) return;
    this.restarts++;
    this.log.error({ generation: g.n, reason: why }, 'generation failed; replacing it');
    g.process.kill();
    this.cpuBudgets.clear();
    this.current = undefined;
    const relaunch = async (): Promise<void> => {
      for (let delay = 100; !this.closed; delay = Math.min(delay * 2, 5_000)) {
        try {
          const next = await this.launch(g.versions);
          if (this.closed) { next.process.kill(); return; }
          this.current = next;
          return;
        } catch (err) {
          this.log.error({ err }, 'replacement generation failed to start');
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    };
    void this.enqueue(relaunch);
  }

  /** Tells the live generation to drop its cached routes (after a deploy or a route change). */
  private async flush(): Promise<void> {
    const g = this.current;
    if (!g) return;
    await fetch(`http://127.0.0.1:${g.process.internalPort}/`, { headers: { 'x-stratus-internal': this.secret, 'x-stratus-op': 'flush' } })
      .then((r) => r.arrayBuffer(), () => undefined);
  }

  /** Stops the watchdog, the generation (letting requests finish for up to `graceMs`), the services and the socket. */
  async close(graceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watchdog?.stop();
    this.unsubscribe?.();
    await this.tail;
    // The front first: it stops accepting and finishes its requests, which the generations are serving.
    await this.front?.stop(graceMs);
    const processes = [...this.draining];
    if (this.current) {
      processes.push(this.current.process);
      await this.tellDraining(this.current.process); // the access records it holds reach the log
    }
    try {
      await Promise.all(processes.map((p) => p.stop(graceMs)));
      // After a start that failed halfway, some of these were never made.
      await this.control?.close();
      await this.store?.close();
      await this.socket?.close();
      await this.generationSocket?.close();
    } finally {
      removeTempDir(this.dir);
    }
  }
}
