/** `startEdge`: the `--edge` listener, used by `stratus serve` (with the control plane's catalog) and `stratus dev`. */
import os from 'node:os';
import { EdgeRuntime, type EdgeRuntimeOptions } from './edge-runtime.js';

/** A running edge. */
export interface RunningEdge {
  /** `http://host:port` */
  url: string;
  port: number;
  runtime: EdgeRuntime;
  /** Stops the runtime; requests in flight get up to `graceMs` (default 10 s). */
  close(graceMs?: number): Promise<void>;
}

/**
 * This host's addresses as /32 and /128 CIDRs: neither scripts nor origins may reach Stratus's own listeners
 * (loopback, private and link-local ranges are prohibited already, but a host may have public addresses too;
 * `edge/address-policy.ts` leaves out those inside a range the operator allowed).
 */
export function hostAddressCidrs(): string[] {
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) out.push(`${a.address.split('%')[0]!}/${a.family === 'IPv6' ? 128 : 32}`);
  }
  return out;
}

/** Starts the edge runtime and its listener. Without a catalog every hostname gets the unknown-host page. */
export async function startEdge(opts: EdgeRuntimeOptions): Promise<RunningEdge> {
  const runtime = new EdgeRuntime({ ...opts, hostAddresses: [...hostAddressCidrs(), ...(opts.hostAddresses ?? [])] });
  try {
    await runtime.start();
  } catch (err) {
    await runtime.close().catch(() => undefined);
    throw err;
  }
  return { url: runtime.url, port: runtime.port, runtime, close: (graceMs) => runtime.close(graceMs) };
}
