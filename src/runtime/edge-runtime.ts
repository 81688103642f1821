/**
 * The edge runtime: the front process, the shared services in Node, and the script runtimes (slots) behind them.
 *
 * Clients connect to the front process, which asks Node once per Host + path (then caches, flushed on every
 * catalog change) which slot serves the request, and forwards it to that slot's Unix socket, held by Node. Slot
 * 0 is the shared runtime: hostnames without a script (origins, public buckets, error pages). Slots 1..N
 * (`runtimes`) run scripts, each account's in the slot `account-slots.ts` assigns it (its own while there are
 * at most N accounts), so a script that loops or grows stalls only its own slot until the watchdog replaces
 * that slot's generation; every other account's requests are served meanwhile. With `runtimes: 0`, or without
 * the front (generations accept on the edge socket themselves, and nothing routes between processes), every
 * script runs in slot 0, as one runtime. Each slot's generations, builds and watchdog: `runtime-slot.ts`; the
 * options and the front door's choice: `edge-options.ts`; the nginx front's start: `front/start-nginx-door.ts`.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import type { ScriptBundle } from '../edge/types.js';
import type { Logger } from '../shared/logger.js';
import { startControlService, type ControlService } from './control-service.js';
import { startStoreService, type StoreService } from './store-service/server.js';
import type { GenerationServices } from './workerd/config-text.js';
import { holdListeningSocket, type HeldSocket } from './workerd/socket-holder.js';
import { makeTempDir, removeTempDir } from './temp-dirs.js';
import { AddressPolicy } from '../edge/address-policy.js';
import { FrontDoor } from './front/front-door.js';
import type { NginxFront } from './front/nginx-front.js';
import { startNginxDoor } from './front/start-nginx-door.js';
import { frontWorkerCount } from './front/nginx-config.js';
import { edgeAccessRecorder } from './edge-access.js';
import type { NginxAccessLog } from './front/nginx-access.js';
import { RuntimeSlot, type SlotSettings } from './runtime-slot.js';
import { AccountSlots } from './account-slots.js';
import { FastPath } from './fast-path.js';
import { DEFAULT_RUNTIMES, resolveEdgeFront, type EdgeRuntimeOptions, type NginxTlsFront } from './edge-options.js';

export { MIN_OWN_CPU_MS } from './runtime-slot.js';
export { DEFAULT_RUNTIMES, resolveEdgeFront, type EdgeFrontChoice, type EdgeRuntimeOptions, type NginxTlsFront } from './edge-options.js';

/** Size past which the nginx front's access records' file is rotated. */
const ACCESS_ROTATE_BYTES = 64 * 1024 * 1024;

/** Production's request body limit on its smallest plans (100 MB). */
const DEFAULT_MAX_REQUEST_BYTES = 100 * 1024 * 1024;

/** The data plane of the edge. */
export class EdgeRuntime {
  private socket!: HeldSocket;
  /** The Unix sockets the slots' generations accept on (front on), by slot; the front forwards to them. */
  private readonly slotSockets: HeldSocket[] = [];
  private front: FrontDoor | undefined;
  private nginx: NginxFront | undefined;
  /** The nginx front's access records, read back from its log file. */
  private nginxAccess: NginxAccessLog | undefined;
  /** The front door in use. */
  readonly frontKind: 'nginx' | 'workerd' | 'off';
  private store!: StoreService;
  private control!: ControlService;
  private services!: GenerationServices;
  private readonly secret = crypto.randomBytes(24).toString('hex');
  private readonly dir = makeTempDir('stratus-edge-');
  /** Slot 0 (shared) and the account slots opened so far. */
  private readonly slots = new Map<number, RuntimeSlot>();
  private readonly opening = new Map<number, Promise<RuntimeSlot>>();
  private readonly accounts: AccountSlots;
  /** Version id -> its account (versions never change hands), so a hand-off finds its slot without the catalog. */
  private readonly versionAccounts = new Map<string, string>();
  private readonly generations = { next: 1 };
  /** The slot that last served a build (`pid` names its live generation). */
  private lastSlot = 0;
  private closed = false;
  private unsubscribe: (() => void) | undefined;
  private readonly log: Logger;
  /** The fast path, when on (nginx front). */
  private fast: FastPath | undefined;
  /** The `--edge-tls` socket nginx ends TLS on, when it does. */
  private tlsSocket: HeldSocket | undefined;

  constructor(private readonly opts: EdgeRuntimeOptions) {
    this.log = opts.logger.child({ component: 'edge' });
    this.frontKind = resolveEdgeFront(opts.front);
    this.accounts = new AccountSlots(this.frontKind === 'off' ? 0 : Math.max(0, opts.runtimes ?? DEFAULT_RUNTIMES));
  }

  /** Generations replaced because one died, hung or grew too large (every slot). */
  get restarts(): number {
    let n = 0;
    for (const s of this.slots.values()) n += s.restarts;
    return n;
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
    return this.front?.pid ?? this.nginx?.pid;
  }

  /** The processes that accept client connections: the workerd front, or nginx's workers (the benchmark counts their CPU). */
  frontPids(): number[] {
    if (this.nginx) return this.nginx.workerPids();
    return this.front?.pid === undefined ? [] : [this.front.pid];
  }

  /** The nginx front's configuration as it is now (undefined with another front). */
  nginxConfig(): string | undefined {
    return this.nginx?.config();
  }

  /**
   * With the nginx front: loads its configuration as it is now and resolves once its old workers stopped
   * accepting. An nginx reload closes its idle kept-alive connections (as every nginx reload does): a hostname's
   * first requests and a deploy reload it; tests that hold a connection open wait for this first.
   */
  async frontSettled(): Promise<void> {
    await this.nginx?.reloadNow();
  }

  /** How often the nginx front's access records' file was rotated (tests check a rotation happened). */
  get accessLogRotations(): number {
    return this.nginxAccess?.rotations ?? 0;
  }

  /** The Unix socket the shared slot's generations accept on, behind the front process (the benchmark measures it alone). */
  get generationSocketPath(): string {
    return this.slotSocketPath(0);
  }

  /** The Unix socket of the runtime running `accountId`'s scripts, once one was asked for (the benchmark measures it alone). */
  socketPathOf(accountId: string): string | undefined {
    const index = this.accounts.assigned(accountId);
    return index === undefined || this.frontKind === 'off' ? undefined : this.slotSocketPath(index);
  }

  private slotSocketPath(index: number): string {
    return path.join(this.dir, index === 0 ? 'generation.sock' : `slot${index}.sock`);
  }

  /** The store service's address: `unix:<path>`, a socket in the runtime's private folder (tests check who can reach it). */
  get storeAddress(): string {
    return this.store.address;
  }

  /** The secret the HTTPS edge listener (`https-edge.ts`) vouches for the client's address and scheme with. */
  get frontSecret(): string {
    return this.secret;
  }

  /** The workerd pid of the live generation of the slot that last loaded a script version (tests use it to simulate a crash). */
  get pid(): number | undefined {
    return this.slots.get(this.lastSlot)?.live?.pid;
  }

  /** The workerd pid of the live generation running `accountId`'s scripts, once one of them was asked for. */
  pidOf(accountId: string): number | undefined {
    const index = this.accounts.assigned(accountId);
    return index === undefined ? undefined : this.slots.get(index)?.live?.pid;
  }

  /** The workerd pids of every process of the live generation running `accountId`'s scripts (several with `replicas`). */
  pidsOf(accountId: string): (number | undefined)[] {
    const index = this.accounts.assigned(accountId);
    return (index === undefined ? undefined : this.slots.get(index)?.live?.pids) ?? [];
  }

  /** nginx ending TLS on `--edge-tls`, when it does (else undefined: Node's listener ends it alone). */
  get tlsFront(): NginxTlsFront | undefined {
    const nginx = this.nginx;
    return this.tlsSocket && nginx ? { port: this.tlsSocket.port, nodeSocket: path.join(this.dir, 'nginx', 'tls-node.sock'), setNames: (n) => nginx.setTls(n) } : undefined;
  }

  /** Whether the fast path is on (`fastPath`, with what it needs). */
  get fastPathOn(): boolean {
    return this.fast !== undefined;
  }

  /** Binds the edge socket, starts the store and control services, the shared slot and the front. */
  async start(): Promise<void> {
    this.socket = await holdListeningSocket(this.opts.listen.host, this.opts.listen.port);
    this.store = await startStoreService({ secret: this.secret, bucketFor: this.opts.bucketFor, logger: this.opts.logger, socketPath: path.join(this.dir, 'store.sock') });
    this.control = await startControlService(this.secret, {
      catalog: this.opts.catalog, ensure: (v) => this.ensure(v), originPort: this.opts.originPort ?? 80, originTlsPort: this.opts.originTlsPort ?? 443,
      originPolicy: new AddressPolicy({ allow: this.opts.originAllow ?? [], deny: this.opts.hostAddresses ?? [] }), logger: this.opts.logger, bucketFor: this.opts.bucketFor,
      access: this.opts.access ?? edgeAccessRecorder(this.opts.logger),
      cpuBudgets: {
        begin: (slot, ray, ms, generation) => this.slots.get(slot)?.cpuBudgets.begin(ray, ms, generation),
        end: (rays) => { for (const s of this.slots.values()) s.cpuBudgets.end(rays); },
      },
      route: (host, p, scheme) => this.route(host, p, scheme),
      resolved: (host, target) => this.learn(host, target),
    });
    this.services = {
      control: this.control.address, store: this.store.address, secret: this.secret,
      scriptNetwork: new AddressPolicy({ allow: this.opts.scriptOutbound ?? [], deny: this.opts.hostAddresses ?? [] }).workerdNetwork(),
      behindFront: this.frontKind !== 'off',
      subrequests: { fetch: this.opts.subrequests ?? 50, bucket: this.opts.bucketSubrequests ?? 1000 },
    };
    await this.openSlot(0);
    if (this.frontKind === 'nginx') {
      const record = this.opts.access ?? edgeAccessRecorder(this.opts.logger);
      const door = await startNginxDoor({
        runtimeDir: this.dir, rotateBytes: this.opts.accessLogRotateBytes ?? ACCESS_ROTATE_BYTES, logger: this.opts.logger, tls: this.opts.tls, secret: this.secret,
        // nginx writes every request's record; the requests of versions with their own CPU limit end their budget with it.
        receive: (records) => {
          let rays: string[] | undefined;
          for (const s of this.slots.values()) if (s.cpuBudgets.busy) s.cpuBudgets.end(rays ??= records.map((r) => r.requestId));
          record(records);
        },
        edgeFd: this.socket.fd, listen: { host: this.socket.host, port: this.socket.port },
        slotSockets: Array.from({ length: this.accounts.slots + 1 }, (_, i) => this.slotSocketPath(i)),
        maxRequestBytes: this.opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES, colo: 'STR', workers: this.opts.frontWorkers || frontWorkerCount(availableParallelism()),
      });
      this.nginx = door.nginx;
      this.nginxAccess = door.access;
      this.tlsSocket = door.tlsSocket;
      const catalog = this.opts.catalog;
      if (this.opts.fastPath && catalog?.hostRoutes && !(this.opts.wallMs ?? 0) && !this.opts.exposeErrors) {
        const nginx = this.nginx;
        this.fast = new FastPath({
          catalog: catalog as typeof catalog & { hostRoutes: NonNullable<typeof catalog.hostRoutes> }, nginx, logger: this.opts.logger,
          slots: () => this.slots.values(), slotSocketPath: (i) => this.slotSocketPath(i), ensure: (v) => this.ensure(v),
        });
        this.fast.compile();
      }
    } else if (this.frontKind === 'workerd') this.front = await FrontDoor.start({
      edgeFd: this.socket.fd, slotSockets: Array.from({ length: this.accounts.slots + 1 }, (_, i) => this.slotSocketPath(i)),
      dir: this.dir, logger: this.opts.logger,
      control: { address: this.control.address, secret: this.secret },
      config: { secret: this.secret, maxRequestBytes: this.opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES, colo: 'STR', cacheMs: 30_000, routed: this.accounts.slots > 0 },
    });
    this.unsubscribe = this.opts.catalog?.onChange(() => { void this.flush(); void this.fast?.refresh(); });
  }

  /** The settings every slot shares. */
  private slotSettings(): SlotSettings {
    return {
      catalog: this.opts.catalog, services: this.services, logger: this.opts.logger, dir: this.dir, secret: this.secret,
      cpuMs: this.opts.cpuMs ?? 30_000, memoryMb: this.opts.memoryMb ?? 1024, wallMs: this.opts.wallMs ?? 0,
      maxRequestBytes: this.opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES, exposeErrors: this.opts.exposeErrors ?? false,
      maxVersions: this.opts.maxVersions ?? 500, recordHeader: this.frontKind === 'nginx',
      fastPath: this.opts.fastPath === true && this.frontKind === 'nginx',
      onLive: () => this.fast?.compile(),
      replicas: this.opts.replicas ?? 1, scriptsInShared: this.accounts.slots === 0,
      beforeRetire: async () => { await this.fast?.beforeRetire(); },
    };
  }

  /** The slot `index`, opened (its socket held, its first generation started, with `first` if given) on first use. */
  private openSlot(index: number, first?: ScriptBundle): Promise<RuntimeSlot> {
    const open = this.slots.get(index);
    if (open) return Promise.resolve(open);
    // A slot opened once close() has begun would outlive it (close waits only for the openings it saw).
    if (this.closed) return Promise.reject(new Error('the edge runtime is closed'));
    let opening = this.opening.get(index);
    if (!opening) {
      opening = (async () => {
        let fd = this.socket.fd;
        if (this.frontKind !== 'off') {
          const held = await holdListeningSocket(`unix:${this.slotSocketPath(index)}`, 0);
          this.slotSockets.push(held);
          fd = held.fd;
        }
        const slot = new RuntimeSlot(index, fd, this.slotSettings(), this.generations);
        await slot.start(first);
        if (this.closed) await slot.stop(0);
        this.slots.set(index, slot);
        if (index > 0) this.log.info({ slot: index, accounts: this.accounts.load()[index - 1] }, 'account runtime opened');
        return slot;
      })();
      this.opening.set(index, opening);
      void opening.catch(() => this.opening.delete(index));
    }
    return opening;
  }

  /** The slot serving a request the front asks about: its script's account's, or the shared one. */
  private async route(host: string, p: string, scheme: 'http' | 'https'): Promise<number> {
    if (this.accounts.slots === 0 || !this.opts.catalog || this.closed) return 0;
    const target = await this.opts.catalog.resolve(host, p, scheme);
    if (target.kind !== 'script') return 0;
    const index = this.accounts.slotOf(target.accountId);
    this.lastSlot = index;
    if (!this.slots.has(index)) {
      const bundle = await this.opts.catalog.bundle(target.versionId);
      await this.openSlot(index, bundle?.accountId === target.accountId ? bundle : undefined);
    }
    return index;
  }

  /**
   * With the nginx front: a script's hostname seen in a catalog answer is sent to its account's slot from then
   * on (nginx's `map $host`, reloaded); until then, and for every other hostname, nginx forwards to the shared
   * slot, whose supervisor hands a script's request over to the slot serving it.
   */
  private learn(host: string, target: { kind: string; accountId?: string }): void {
    if (target.kind === 'script') this.fast?.learn(host);
    if (!this.nginx || this.closed || this.accounts.slots === 0 || target.kind !== 'script' || !target.accountId) return;
    const index = this.accounts.slotOf(target.accountId);
    if (this.nginx.routed(host) === index) return;
    void this.openSlot(index).then(() => this.nginx?.route(host, index), () => undefined);
  }

  /** Whether the edge serves (readiness): the front and the shared slot live; the watchdogs replace what stops answering. */
  status(): { ok: boolean; detail: string } {
    if (this.closed) return { ok: false, detail: 'closed' };
    const shared = this.slots.get(0)?.live;
    if (!shared || !shared.alive) return { ok: false, detail: 'workerd is being replaced' };
    if (this.front && !this.front.alive) return { ok: false, detail: 'the front workerd is being restarted' };
    if (this.nginx && !this.nginx.alive) return { ok: false, detail: 'the front nginx is being restarted' };
    let versions = 0;
    let replacing = 0;
    for (const s of this.slots.values()) {
      const live = s.live;
      if (live?.alive) versions += live.versions;
      else replacing++;
    }
    return { ok: true, detail: `${this.slots.size} workerd runtime${this.slots.size === 1 ? '' : 's'} serving ${versions} script version${versions === 1 ? '' : 's'}${replacing ? `, ${replacing} being replaced` : ''}` };
  }

  /** Makes the slot of the version's account serve `versionId`; resolves its internal port, or null if the version does not exist. */
  async ensure(versionId: string): Promise<number | null> {
    if (this.closed) return null;
    let account = this.versionAccounts.get(versionId);
    if (account === undefined) {
      const bundle = await this.opts.catalog?.bundle(versionId);
      if (!bundle) return null;
      account = bundle.accountId;
      if (this.versionAccounts.size >= 10_000) this.versionAccounts.clear();
      this.versionAccounts.set(versionId, account);
    }
    const slot = await this.openSlot(this.accounts.slotOf(account));
    this.lastSlot = slot.index;
    return slot.ensure(versionId);
  }

  /** Tells the front and every slot's live generation to drop their cached routes (after a deploy or a route change). */
  private async flush(): Promise<void> {
    await Promise.all([this.front?.flush(), ...[...this.slots.values()].map((s) => s.flush())]);
  }

  /** Stops the watchdogs, the front, the generations (letting requests finish for up to `graceMs`), the services and the sockets. */
  async close(graceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    this.fast?.close();
    await Promise.allSettled([...this.opening.values()]);
    await Promise.all([...this.slots.values()].map((s) => s.quiesce()));
    // The front first: it stops accepting and finishes its requests, which the generations are serving.
    try {
      await this.front?.stop(graceMs);
      await this.nginx?.stop(graceMs);
      this.nginxAccess?.close();
      await Promise.all([...this.slots.values()].map((s) => s.stop(graceMs)));
      // After a start that failed halfway, some of these were never made.
      await this.control?.close();
      await this.store?.close();
      await this.socket?.close();
      await this.tlsSocket?.close();
      await Promise.all(this.slotSockets.map((s) => s?.close()));
    } finally {
      removeTempDir(this.dir);
    }
  }
}
