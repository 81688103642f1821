/**
 * One workerd child process: started with a generated config, the held edge socket as descriptor 3 and a
 * control pipe (descriptor 4) on which workerd reports each socket it listens on. Ready once the `internal`
 * socket is listening; a process that exits before that failed to start (its stderr says why).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import type { Logger } from '../../shared/logger.js';
import { killAtExit } from '../temp-dirs.js';

const workerd = createRequire(import.meta.url)('workerd') as { default: string; compatibilityDate: string };
/** The workerd binary of the npm package. */
export const WORKERD_BINARY: string = workerd.default;
/** The newest compatibility date this workerd supports. */
export const WORKERD_COMPATIBILITY_DATE: string = workerd.compatibilityDate;

/**
 * util-linux `setpriv`, when present: workerd is started through it with `--pdeathsig KILL`, so a workerd
 * never outlives a Stratus that was killed (it would keep the edge port open).
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));

/** A workerd that failed to start (bad config, a script that does not load). */
export class WorkerdStartError extends Error {
  override name = 'WorkerdStartError';
}

/** How a process ended. */
export interface WorkerdExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link WorkerdProcess.start}. */
export interface WorkerdStartOptions {
  configFile: string;
  /** Listening socket served as the config's `edge` socket. */
  edgeFd: number;
  logger: Logger;
  /** Label in logs (the generation number). */
  label: string;
}

/** A running workerd. */
export class WorkerdProcess {
  /** Resolves when the process has exited (for any reason). */
  readonly exited: Promise<WorkerdExit>;
  private exitedNow = false;

  private constructor(private readonly child: ChildProcess, readonly internalPort: number, exited: Promise<WorkerdExit>) {
    this.exited = exited;
    void exited.then(() => { this.exitedNow = true; });
  }

  /** True until the process exits. */
  get alive(): boolean {
    return !this.exitedNow;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Starts workerd and resolves once it serves; rejects with {@link WorkerdStartError} when it cannot. */
  static start(opts: WorkerdStartOptions): Promise<WorkerdProcess> {
    const args = ['serve', opts.configFile, '--socket-fd=edge=3', '--control-fd=4'];
    const [command, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', WORKERD_BINARY, ...args]] : [WORKERD_BINARY, args];
    const child = spawn(command, argv, {
      stdio: ['ignore', 'pipe', 'pipe', opts.edgeFd, 'pipe'],
      env: {},
    });
    killAtExit(child);
    const log = opts.logger.child({ component: 'workerd', generation: opts.label, pid: child.pid });
    const stderrTail: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => log.info({ script: true }, line));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderrTail.push(line);
      if (stderrTail.length > 40) stderrTail.shift();
      log.warn(line);
    });
    const exited = new Promise<WorkerdExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    return new Promise<WorkerdProcess>((resolve, reject) => {
      let ready = false;
      const control = createInterface({ input: child.stdio[4] as NodeJS.ReadableStream });
      control.on('line', (line) => {
        let event: { event?: string; socket?: string; port?: number };
        try { event = JSON.parse(line); } catch { return; }
        if (event.event === 'listen' && event.socket === 'internal' && typeof event.port === 'number' && !ready) {
          ready = true;
          resolve(new WorkerdProcess(child, event.port, exited));
        }
      });
      child.once('error', (err) => { if (!ready) { ready = true; reject(new WorkerdStartError(`cannot run workerd: ${err.message}`)); } });
      void exited.then(({ code, signal }) => {
        if (ready) return;
        ready = true;
        const detail = stderrTail.filter((l) => l.trim() !== '').join('\n');
        reject(new WorkerdStartError(`workerd exited (${signal ?? `code ${code}`}) before serving${detail ? `:\n${detail}` : ''}`));
      });
    });
  }

  /** Asks workerd to stop accepting and finish requests in flight (SIGTERM); kills it after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Kills the process at once (requests in flight on it are lost). */
  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }
}
