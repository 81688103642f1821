/**
 * The nginx front door (`--edge-front nginx`, or `auto` when Debian's nginx is installed): Stratus starts nginx
 * on the held edge socket (handed over as an inherited listener, `NGINX=3;`, so nginx never binds and a restart
 * never closes the port), with a generated configuration in the runtime's private folder (`nginx-config.ts`),
 * and reloads it gracefully (SIGHUP: new workers take new connections, old ones finish theirs) when the Host ->
 * runtime slot map changes. If nginx exits while the runtime is open it is started again on the same socket.
 * With `tls`, nginx also inherits the `--edge-tls` socket (`NGINX=3;4;`) and ends TLS for the names it is given
 * (`setTls`, `tls-config.ts`), its HTTPS servers including the same locations (`https-locations.conf`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '../../shared/logger.js';
import { nginxConfig, serverBody, type NginxSettings } from './nginx-config.js';
import { rangeSocket, tlsConfig, type TlsConfigInput, type TlsName } from './tls-config.js';
import { killAtExit } from '../temp-dirs.js';
import { procStatFields } from '../proc-stat.js';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));

/** Replaces `file` with `text` whole (a new file renamed over it): a reader that opened it reads the old one to its end. */
function writeWhole(file: string, text: string): void {
  const next = `${file}.next`;
  fs.writeFileSync(next, text, { mode: 0o600 });
  fs.renameSync(next, file);
}

/** The nginx binary: `STRATUS_NGINX`, else Debian's `/usr/sbin/nginx`, else `nginx` on the PATH; undefined when none. */
export function findNginx(): string | undefined {
  const candidates = [process.env['STRATUS_NGINX'], '/usr/sbin/nginx', '/usr/bin/nginx', ...(process.env['PATH'] ?? '').split(':').map((d) => d && path.join(d, 'nginx'))];
  return candidates.find((p): p is string => !!p && fs.existsSync(p));
}

/** nginx's stream module (Debian's libnginx-mod-stream), which ending TLS in nginx needs; undefined when not installed. */
export function findStreamModule(): string | undefined {
  return [process.env['STRATUS_NGINX_STREAM_MODULE'], '/usr/lib/nginx/modules/ngx_stream_module.so', '/usr/lib64/nginx/modules/ngx_stream_module.so']
    .find((p): p is string => !!p && fs.existsSync(p));
}

/** What nginx ends TLS with (`--edge-tls`, `tls-config.ts`). */
export interface NginxTlsOptions {
  /** The held `--edge-tls` socket's descriptor and address. */
  fd: number;
  listen: { host: string; port: number };
  /** The stream module's file. */
  module: string;
  /** Node's HTTPS listener (Unix socket) for the names nginx does not serve. */
  nodeSocket: string;
}

/** The names nginx serves itself (`TlsConfigInput` less what the front knows). */
export type TlsNames = Pick<TlsConfigInput, 'names'>;

/**
 * The names still served by a TLS range they left (`TlsConfigInput.leaving`): every name of `before` now served
 * in another range, and those already leaving (`was`) whose name is still served elsewhere than the range it
 * left; each with the certificate it is served with now (the certificate files of older names may be gone).
 */
export function leavingNames(before: readonly TlsName[], now: readonly TlsName[], was: readonly TlsName[], dir: string): TlsName[] {
  const current = new Map(now.map((n) => [n.name, n]));
  const out = new Map<string, TlsName>();
  for (const old of [...was, ...before]) {
    const n = current.get(old.name);
    const left = rangeSocket(dir, old.range);
    if (!n || rangeSocket(dir, n.range) === left) continue;
    out.set(`${old.name} ${left}`, { ...n, range: old.range });
  }
  return [...out.values()];
}

/** Options of {@link NginxFront.start}. */
export interface NginxFrontOptions extends Omit<NginxSettings, 'routes' | 'user' | 'dir' | 'fast' | 'tls'> {
  binary: string;
  /** The held edge socket's descriptor (inherited by nginx as its listener). */
  edgeFd: number;
  /** Private folder (mode 0700) for the configuration, pid file and temporary files. */
  dir: string;
  logger: Logger;
  /** nginx ends TLS on the `--edge-tls` socket too (needs `secret`). */
  tls?: NginxTlsOptions | undefined;
}

/** A running nginx front. */
export class NginxFront {
  private child!: ChildProcess;
  private exited = true;
  private closed = false;
  private readonly routes = new Map<string, number>();
  /** The fast path's routes (`fast-routes.ts`), undefined while it is off. */
  private fast: string | undefined;
  /** The names nginx ends TLS for (none at first: Node's listener serves every name). */
  private tlsNames: TlsNames = { names: [] };
  /** Names served by the TLS range they left until {@link oldWorkers} are gone ({@link leavingNames}). */
  private tlsLeaving: TlsName[] = [];
  /** Workers that served before a reload that moved names: they may route a connection by the names as they were. */
  private readonly oldWorkers = new Set<number>();
  private leavingTimer: NodeJS.Timeout | undefined;
  /** Names moved since the last reload: the next reload records the workers from before it in {@link oldWorkers}. */
  private movedSinceReload = false;
  private reloadTimer: NodeJS.Timeout | undefined;
  /** Configurations written so far with TLS (names each one's HTTPS locations file). */
  private writings = 0;
  private readonly log: Logger;
  private readonly configFile: string;

  private constructor(private readonly opts: NginxFrontOptions) {
    this.log = opts.logger.child({ component: 'edge-front', front: 'nginx' });
    this.configFile = path.join(opts.dir, 'nginx.conf');
  }

  /** Writes the configuration and starts nginx; resolves once it has read it and serves. */
  static async start(opts: NginxFrontOptions): Promise<NginxFront> {
    fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    const front = new NginxFront(opts);
    await front.launch();
    return front;
  }

  /** The master process's pid. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** The configuration as it is now (tests read it). */
  config(): string {
    const settings: NginxSettings = { ...this.opts, dir: this.opts.dir, routes: this.routes, fast: this.fast, user: process.getuid?.() === 0 ? os.userInfo().username : undefined, tls: undefined };
    const t = this.opts.tls;
    if (!t) return nginxConfig(settings);
    const text = tlsConfig({ listen: t.listen, dir: this.opts.dir, nodeSocket: t.nodeSocket, bodyFile: this.httpsBodyFile, ...this.tlsNames, leaving: this.tlsLeaving });
    return nginxConfig({ ...settings, tls: { module: t.module, ...text } });
  }

  /** The locations every HTTPS server includes: a file of each writing's own, named by the configuration that includes it. */
  private get httpsBodyFile(): string {
    return this.httpsBodyFileOf(this.writings);
  }

  private httpsBodyFileOf(writing: number): string {
    return path.join(this.opts.dir, `https-locations-${writing}.conf`);
  }

  /**
   * Writes the configuration (and the HTTPS servers' locations) for nginx to read, each file whole: nginx's master
   * may still be parsing the last one (it reads a file 4 KiB at a time), and a file rewritten in place under it
   * would splice two configurations into one that can parse, with one's host maps naming the other's upstreams
   * (a request for one script answered by another's, seen once in a fresh-clone run under load). The locations
   * file is a new one each time, so a configuration always includes the locations written with it.
   */
  private writeConfig(): void {
    if (this.opts.tls) {
      this.writings++;
      writeWhole(this.httpsBodyFile, serverBody({ ...this.opts, dir: this.opts.dir, routes: this.routes, fast: this.fast, tls: undefined }, true));
      // the one before the last writing's: a parse of the previous configuration may still include that one
      fs.rmSync(this.httpsBodyFileOf(this.writings - 2), { force: true });
    }
    writeWhole(this.configFile, this.config());
  }

  /** Sets the names nginx ends TLS for (within a reload, batched over 100 ms, when they changed). */
  setTls(names: TlsNames): void {
    if (JSON.stringify(names) === JSON.stringify(this.tlsNames)) return;
    const leaving = leavingNames(this.tlsNames.names, names.names, this.tlsLeaving, this.opts.dir);
    // Names moved by this change: the workers serving when it is loaded are the ones to outlive.
    if (JSON.stringify(leaving) !== JSON.stringify(this.tlsLeaving)) this.movedSinceReload = leaving.length > 0;
    this.tlsLeaving = leaving;
    this.tlsNames = names;
    this.scheduleReload();
  }

  /**
   * Forgets the names leaving their TLS ranges once every worker that served before the reloads that moved them
   * has exited (from then on no connection is routed by the names as they were), and reloads without them.
   */
  private watchLeaving(): void {
    if (this.leavingTimer) return;
    this.leavingTimer = setInterval(() => {
      const alive = new Set(this.children(true));
      for (const pid of this.oldWorkers) if (!alive.has(pid)) this.oldWorkers.delete(pid);
      if ((this.oldWorkers.size > 0 || this.movedSinceReload) && !this.exited) return;
      clearInterval(this.leavingTimer);
      this.leavingTimer = undefined;
      this.oldWorkers.clear();
      if (this.tlsLeaving.length === 0) return;
      this.tlsLeaving = [];
      this.scheduleReload();
    }, 200);
    this.leavingTimer.unref();
  }

  /** Sends `host`'s requests to `slot` from now on (within a reload, batched over 100 ms). */
  route(host: string, slot: number): void {
    if (this.routes.get(host) === slot) return;
    if (this.routes.size >= 100_000) this.routes.clear();
    this.routes.set(host, slot);
    this.scheduleReload();
  }

  /** Sets the fast path's routes (within a reload, batched over 100 ms, when they changed). */
  setFast(text: string): void {
    if (this.fast === text) return;
    this.fast = text;
    this.scheduleReload();
  }

  /**
   * Reloads now and resolves once nginx's new workers run and its old ones stopped accepting (they finish the
   * requests they have; nginx's master tells them 100 ms after starting the new ones), or after 5 s: from then
   * on no new connection is served with the old configuration.
   */
  async reloadNow(): Promise<void> {
    if (this.closed || this.exited) return;
    clearTimeout(this.reloadTimer);
    this.reloadTimer = undefined;
    const before = new Set(this.workerPids());
    this.reload();
    const quitting = (pid: number): boolean => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('shutting down');
      } catch {
        return true; // gone
      }
    };
    for (let waited = 0; waited < 5_000 && !this.exited; waited += 10) {
      const now = this.workerPids();
      if (now.some((p) => !before.has(p)) && [...before].every(quitting)) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Whether `host` is routed to an account slot already. */
  routed(host: string): number | undefined {
    return this.routes.get(host);
  }

  private scheduleReload(): void {
    if (this.reloadTimer || this.closed) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      this.reload();
    }, 100);
    this.reloadTimer.unref();
  }

  /** Rewrites the configuration and has nginx load it gracefully (SIGHUP). */
  reload(): void {
    if (this.closed || this.exited) return;
    if (this.movedSinceReload) {
      this.movedSinceReload = false;
      for (const pid of this.workerPids()) this.oldWorkers.add(pid);
      this.watchLeaving();
    }
    this.writeConfig();
    this.child.kill('SIGHUP');
  }

  private async launch(): Promise<void> {
    this.writeConfig();
    const pidFile = path.join(this.opts.dir, 'nginx.pid');
    fs.rmSync(pidFile, { force: true });
    const args = ['-p', this.opts.dir, '-c', this.configFile, '-e', 'stderr'];
    // If Stratus dies (even by SIGKILL) the master gets SIGTERM, nginx's fast shutdown: it stops its workers and
    // exits, so none is left holding the edge port. (SIGKILL to the master would leave its workers serving.)
    const [command, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'TERM', this.opts.binary, ...args]] : [this.opts.binary, args];
    // Descriptor 3 is the held edge socket; NGINX names it as inherited, so nginx listens on it as it is.
    // Its own process group: a master that dies leaves workers behind (still accepting on the edge socket), and
    // the group is how they are found and stopped.
    // With TLS, descriptor 4 is the held `--edge-tls` socket (the stream server's listener).
    const tlsFd = this.opts.tls?.fd;
    const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe', this.opts.edgeFd, ...(tlsFd !== undefined ? [tlsFd] : [])], env: { NGINX: tlsFd !== undefined ? '3;4;' : '3;' }, detached: true });
    this.child = child;
    killAtExit(child, true);
    this.exited = false;
    const stderr: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr.push(line);
      if (stderr.length > 40) stderr.shift();
      // nginx's own notices ("using inherited sockets", printed before its configured error_log applies) are not problems
      if (/\[(notice|info)\]/.test(line)) this.log.debug(line); else this.log.warn(line);
    });
    const exit = new Promise<void>((resolve) => child.once('exit', () => { this.exited = true; resolve(); }));
    // Ready once the master wrote its pid file (the configuration was read and the listener taken) and forked its
    // workers: a reload just after start must see them leave (reloadNow), or the first would pass for the new ones.
    for (let waited = 0; !fs.existsSync(pidFile) || this.workerPids().length === 0; waited += 20) {
      if (this.exited) throw new Error(`nginx exited before serving:\n${stderr.join('\n')}`);
      if (waited > 15_000) { this.kill(); throw new Error('nginx did not start within 15 s'); }
      await new Promise((r) => setTimeout(r, 20));
    }
    void exit.then(() => {
      if (child.pid !== undefined) { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* none left */ } }
      if (this.closed || child !== this.child) return;
      this.log.error('nginx exited; starting it again');
      void this.relaunch();
    });
  }

  private async relaunch(): Promise<void> {
    for (let delay = 100; !this.closed; delay = Math.min(delay * 2, 5_000)) {
      try {
        await this.launch();
        if (this.closed) this.child.kill('SIGKILL');
        return;
      } catch (err) {
        this.log.error({ err }, 'nginx failed to start');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** nginx's worker processes (the master's children) that accept and forward (not those finishing after a reload); the master only manages them. */
  workerPids(): number[] {
    return this.children(false);
  }

  /** The master's children: every worker, or (`finishing` false) not those a reload told to finish and exit. */
  private children(finishing: boolean): number[] {
    const master = this.child.pid;
    const out: number[] = [];
    if (master === undefined || this.exited) return out;
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (procStatFields(entry)?.[1] !== String(master)) continue;
        if (finishing || !fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('shutting down')) out.push(Number(entry));
      } catch { /* gone meanwhile */ }
    }
    return out;
  }

  /** Has nginx reopen its log files (SIGUSR1; the access log's rotation); false when nginx does not run. */
  reopenLogs(): boolean {
    if (this.exited) return false;
    return this.child.kill('SIGUSR1');
  }

  /**
   * nginx's processes: the master and its workers, old ones finishing their requests included (an old worker
   * still holds the access log a rotation set aside, with records in its buffer, until it reopens its logs).
   */
  processes(): number[] {
    const master = this.child.pid;
    return master === undefined || this.exited ? [] : [master, ...this.children(true)];
  }

  /** Kills nginx at once, workers first (a worker outliving its master would keep the edge socket open). */
  kill(): void {
    const pid = this.child.pid;
    if (pid !== undefined) { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } }
  }

  /** Stops accepting and lets requests in flight finish for up to `graceMs` (SIGQUIT), then kills nginx. */
  async stop(graceMs: number): Promise<void> {
    this.closed = true;
    clearTimeout(this.reloadTimer);
    clearInterval(this.leavingTimer);
    if (this.exited) return;
    const done = new Promise<void>((resolve) => { if (this.exited) resolve(); else this.child.once('exit', () => resolve()); });
    this.child.kill('SIGQUIT');
    const timer = setTimeout(() => this.kill(), graceMs);
    await done;
    clearTimeout(timer);
  }
}
