/**
 * The options of the edge runtime (`EdgeRuntime`, `startEdge`) and the choice of its front door: what
 * `stratus serve`'s `--edge-*` flags and `stratus dev` set.
 */
import type { EdgeCatalog } from '../edge/types.js';
import type { Logger } from '../shared/logger.js';
import type { EdgeAccessRecord } from './control-service.js';
import type { BucketResolver } from './store-service/server.js';
import { findNginx, type TlsNames } from './front/nginx-front.js';

/** Account runtimes by default (`--edge-runtimes`): each a workerd process of its own (docs/runtime.md, "Isolation and limits"). */
export const DEFAULT_RUNTIMES = 4;

/**
 * workerd processes per script runtime for `--edge-replicas 0` (the default of `stratus serve`): two where there
 * are at least two cores, so a process stopped by a full garbage collection leaves its requests' successors to
 * the other (docs/edge-performance.md, "Many cores": at 2,000 hello-world requests/s p99 4.7-5.5 ms against 7.5-10.2 ms with
 * one); one on a single core, where a second would only take turns with the first.
 */
export function replicaCount(cores: number): number {
  return cores >= 2 ? 2 : 1;
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
   * The front process (default `auto`: nginx when installed, else the workerd front): it holds client connections, so requests in flight on a generation that
   * is killed get the 1102 page, and it counts chunked bodies against the body limit. Without it generations
   * accept on the edge socket themselves: faster, but those requests lose their connection and a chunked
   * body is not counted.
   */
  front?: EdgeFrontChoice | boolean;
  /**
   * Script runtimes besides the shared one (default {@link DEFAULT_RUNTIMES}): each account's scripts run in one
   * of them, its own while there are at most this many accounts, so one account's loop stalls no other. 0: every
   * script in the shared runtime. Needs the front (without it every script runs in the shared runtime).
   */
  runtimes?: number;
  /**
   * workerd processes per generation of the runtimes that run scripts (`--edge-replicas`, default 1), each with the
   * same versions and sockets of its own: the fast path sends each request to the one with the fewest in flight.
   */
  replicas?: number;
  /** nginx worker processes with the nginx front (`--edge-front-workers`; default or 0: one per two cores, `frontWorkerCount`). */
  frontWorkers?: number | 'auto';
  /** With the nginx front: size past which its access records' file is rotated (default 64 MiB). */
  accessLogRotateBytes?: number;
  /**
   * The fast path (`--edge-fast-path`, on by default in `stratus serve`, off unless given here; nginx front only, and only with a catalog that lists a
   * hostname's routes and no wall-time limit): nginx forwards a script's plain HTTP request straight to its
   * version's own socket (`fast-path.ts`).
   */
  fastPath?: boolean;
  /** `--edge-tls`: with the nginx front and its stream module nginx ends TLS on it (`front/tls-config.ts`, `EdgeRuntime.tlsFront`). */
  tls?: { host: string; port: number } | undefined;
}

/** nginx ending TLS: the port, Node's listener for the names nginx leaves to it, and the names nginx serves. */
export interface NginxTlsFront { port: number; nodeSocket: string; setNames(names: TlsNames): void }

/**
 * The edge's front door (`--edge-front`): `nginx` (Debian's nginx, started and configured by Stratus), `workerd`
 * (a workerd process running Stratus's forwarding worker), `auto` (nginx when installed, else workerd), or
 * `off` (the generations accept on the edge socket themselves). `true` is `workerd`, `false` is `off`.
 */
export type EdgeFrontChoice = 'auto' | 'nginx' | 'workerd' | 'off';

/** The front a choice comes to on this host (`auto`: nginx when installed). */
export function resolveEdgeFront(choice: EdgeFrontChoice | boolean | undefined): 'nginx' | 'workerd' | 'off' {
  if (choice === false || choice === 'off') return 'off';
  if (choice === 'nginx') return 'nginx';
  if (choice === 'workerd' || choice === true) return 'workerd';
  return findNginx() ? 'nginx' : 'workerd';
}
