/**
 * The front door: one workerd process, for the runtime's whole life, that accepts on the edge socket and
 * forwards every request to the runtime slot serving it (`runtime-slot.ts`), through that slot's Unix socket
 * held by Node (its code: `in-workerd/front/`).
 * It runs only Stratus's own forwarding code, so the watchdog never kills it; if it exits anyway it is started
 * again at once on the same held sockets (clients wait in the edge socket's backlog meanwhile).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { capnpString, STORE_SECRET_HEADER } from '../workerd/config-text.js';
import { v8FlagsLine } from '../workerd/gc-flags.js';
import { WorkerdProcess } from '../workerd/process.js';
import type { FrontConfig } from '../in-workerd/front/config.js';
import { CONFIG_MODULE } from '../in-workerd/module-names.js';
import { workerSource } from '../workerd/worker-sources.js';

/** The header carrying `request.cf` (the client's address) from the front to the generation. */
export const CF_BLOB_HEADER = 'x-stratus-cf';

/** Options of {@link FrontDoor.start}. */
export interface FrontDoorOptions {
  /** The held edge socket's descriptor. */
  edgeFd: number;
  /** Paths of the Unix sockets the slots' generations accept on, by slot (0: the shared runtime). */
  slotSockets: string[];
  /** Folder for the config (private; removed once workerd has read it). */
  dir: string;
  config: FrontConfig;
  /** `host:port` of the control service (access reports) and the secret it requires. */
  control: { address: string; secret: string };
  logger: Logger;
}

/** The front worker's binding (and service) of slot `index`'s socket. */
export function slotBinding(index: number): string {
  return `SLOT${index}`;
}

function writeFrontConfig(opts: FrontDoorOptions, dir: string): string {
  const slots = opts.slotSockets;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'front.js'), workerSource('front'), { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(opts.config), { mode: 0o600 });
  const text = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "front", worker = (
      modules = [(name = "front.js", esModule = embed "front.js"), (name = ${capnpString(CONFIG_MODULE)}, json = embed "config.json")],
      compatibilityDate = "2025-01-01",
      bindings = [${['(name = "CONTROL", service = "control")', ...slots.map((_, i) => `(name = "${slotBinding(i)}", service = "${slotBinding(i)}")`)].join(', ')}])),
    (name = "control", external = (address = ${capnpString(opts.control.address)}, http = (injectRequestHeaders = [(name = ${capnpString(STORE_SECRET_HEADER)}, value = ${capnpString(opts.control.secret)})]))),
${slots.map((socket, i) => `    (name = "${slotBinding(i)}", external = (address = ${capnpString(`unix:${socket}`)}, http = (cfBlobHeader = ${capnpString(CF_BLOB_HEADER)}))),`).join('\n')}
  ],
  sockets = [
    (name = "edge", http = (), service = "front"),
    (name = "internal", address = "127.0.0.1:0", http = (), service = "front"),
  ],
  ${v8FlagsLine()}
);
`;
  const file = path.join(dir, 'front.capnp');
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** The running front process, restarted if it exits while the runtime is open. */
export class FrontDoor {
  private process!: WorkerdProcess;
  private closed = false;
  private launches = 0;
  private readonly log: Logger;

  private constructor(private readonly opts: FrontDoorOptions) {
    this.log = opts.logger.child({ component: 'edge-front' });
  }

  /** Starts the front process; resolves once it accepts. */
  static async start(opts: FrontDoorOptions): Promise<FrontDoor> {
    const door = new FrontDoor(opts);
    await door.launch();
    return door;
  }

  /** The front process's pid. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.process.alive;
  }

  /** Has the front drop its cached routes (after a deploy or a route change). */
  async flush(): Promise<void> {
    const p = this.process;
    if (!p.alive) return; // a restarted front starts with an empty cache
    await fetch(`http://127.0.0.1:${p.internalPort}/`, { headers: { 'x-stratus-internal': this.opts.config.secret, 'x-stratus-op': 'flush' }, signal: AbortSignal.timeout(2000) })
      .then((r) => r.arrayBuffer(), () => undefined);
  }

  private async launch(): Promise<void> {
    const dir = path.join(this.opts.dir, `front${this.launches++}`);
    try {
      const file = writeFrontConfig(this.opts, dir);
      this.process = await WorkerdProcess.start({ configFile: file, edgeFd: this.opts.edgeFd, logger: this.opts.logger, label: 'front' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const p = this.process;
    void p.exited.then((exit) => {
      if (this.closed || p !== this.process) return;
      this.log.error({ exit }, 'front process exited; starting it again');
      void this.relaunch();
    });
  }

  private async relaunch(): Promise<void> {
    for (let delay = 100; !this.closed; delay = Math.min(delay * 2, 5_000)) {
      try {
        await this.launch();
        if (this.closed) this.process.kill();
        return;
      } catch (err) {
        this.log.error({ err }, 'front process failed to start');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Stops accepting and lets requests in flight finish for up to `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.closed = true;
    await this.process.stop(graceMs);
  }
}
